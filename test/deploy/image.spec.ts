import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RUNTIME_FOLDERS } from '../../src/config/config';
import { freePort } from '../../src/common/free-port';

const ROOT = resolve(__dirname, '..', '..');
const ADMIN_TOKEN = 'image-test-admin-token-0123456789';

/**
 * The final stage of the Dockerfile: each `COPY SRC... DEST` as [sources, destination],
 * a `--from=build /app/X` source read as the repository's own (built) X.
 */
export function runtimeCopies(dockerfile: string): [string[], string][] {
  const stages = dockerfile.split(/^FROM /m);
  const final = stages[stages.length - 1];
  return [...final.matchAll(/^COPY (--from=\S+ )?(.+)$/gm)].map(([, from, rest]) => {
    const parts = rest.trim().split(/\s+/);
    const sources = parts.slice(0, -1).map((src) => (from ? src.replace(/^\/app\//, '') : src));
    return [sources, parts[parts.length - 1]];
  });
}

/**
 * No Docker engine runs here, so the image's runtime stage is rebuilt as files: what
 * its COPY lines bring, its `npm ci --omit=dev --ignore-scripts` install, then its CMD
 * (`serve`, on the embedded store with the default encoder), asked a search over HTTP.
 */
describe('the container image layout', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const app = mkdtempSync(join(tmpdir(), 'freshfacts-image-'));
  afterAll(() => rmSync(app, { recursive: true, force: true }));

  it('copies every folder the code reads at run time', () => {
    const copied = runtimeCopies(dockerfile).flatMap(([sources]) => sources);
    expect(copied).toEqual(expect.arrayContaining([...RUNTIME_FOLDERS, 'package.json']));
  });

  it('starts from the copied files and runtime dependencies alone and answers a search', async () => {
    expect(existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'))).toBe(true);
    for (const [sources, destination] of runtimeCopies(dockerfile)) {
      for (const source of sources) {
        const target = destination.endsWith('/')
          ? join(app, destination, source)
          : join(app, destination);
        cpSync(join(ROOT, source), target, { recursive: true });
      }
    }
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev --ignore-scripts /m);
    // From npm's cache, which the repository's own `npm ci` filled.
    const install = spawnSync(
      'npm',
      ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'],
      { cwd: app, encoding: 'utf8', env: { ...process.env, NODE_ENV: 'production' } },
    );
    expect(install.stderr).not.toMatch(/ERR!/);
    expect(install.status).toBe(0);
    expect(existsSync(join(app, 'node_modules', 'jest'))).toBe(false);
    expect(existsSync(join(app, 'src'))).toBe(false);

    const port = await freePort();
    const server = spawn(
      process.execPath,
      ['bin/freshfacts', 'serve', '--host', '127.0.0.1', '--port', String(port)],
      {
        cwd: app,
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'production',
          FRESHFACTS_DATA_DIR: join(app, 'data'),
          FRESHFACTS_ADMIN_TOKEN: ADMIN_TOKEN,
          FRESHFACTS_LOG_LEVEL: 'error',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let errors = '';
    server.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const exited = new Promise<number | null>((done) => server.on('exit', done));
    try {
      const base = `http://127.0.0.1:${port}`;
      await ready(`${base}/readyz`, exited, () => errors);
      const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
      const post = (path: string, body: unknown) =>
        fetch(`${base}${path}`, { method: 'POST', headers: admin, body: JSON.stringify(body) });
      expect((await post('/admin/accounts', { email: 'image@example.com' })).status).toBe(201);
      const created = await post('/admin/accounts/image@example.com/keys', { name: 'image' });
      const { key } = (await created.json()) as { key: string };
      const res = await fetch(`${base}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'Who was the head coach of Helsingin Jalkapalloklubi?' }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { results: { answer: string }[] };
      expect(body.results.length).toBeGreaterThan(0);
      // The shipped corpus reaches past a late-2025 model's cutoff (issue 17).
      const fresh = await fetch(`${base}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'Which country announced a ban on social media for children?',
          model_id: 'anthropic/claude-sonnet-4.5',
        }),
      });
      expect(fresh.headers.get('freshfacts-model-cutoff')).toBe('2025-07-01');
      const days = ((await fresh.json()) as { results: { true_by: string }[] }).results.map(
        (fact) => fact.true_by,
      );
      expect(days.length).toBeGreaterThan(0);
      for (const day of days) expect(day > '2025-07-01').toBe(true);
    } finally {
      server.kill('SIGTERM');
      await exited;
    }
  }, 240_000);
});

async function ready(url: string, exited: Promise<unknown>, log: () => string): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (const deadline = Date.now() + 180_000; Date.now() < deadline;) {
    if (gone) throw new Error(`serve exited before it was ready:\n${log()}`);
    const status = await fetch(url).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`not ready after 180 s:\n${log()}`);
}
