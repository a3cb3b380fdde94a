import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startApp, TestApp } from '../support/app';
import { CATANIA } from '../support/corpus';

const CLIENT = join(__dirname, '..', '..', 'client');
const TSC = join(__dirname, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc');
const exec = promisify(execFile);

// A user's fresh project: Node without this repository's settings, npm without a registry.
function inProject(dir: string) {
  const env = { ...process.env, NODE_OPTIONS: '', npm_config_registry: 'http://127.0.0.1:9/' };
  return {
    npm: (...args: string[]) => exec('npm', args, { cwd: dir, env }),
    node: (file: string, extra: Record<string, string>) =>
      exec(process.execPath, [file], { cwd: dir, env: { ...env, ...extra } }),
  };
}

const CJS = `
const { FreshfactsClient } = require('freshfacts/client');
const client = new FreshfactsClient({ baseUrl: process.env.URL, apiKey: process.env.KEY });
client.search({ query: 'Who is the head coach of Calcio Catania?', k: 10 }).then((answer) => {
  const outside = Object.keys(require.cache).filter((file) => !file.includes('node_modules/freshfacts/'));
  console.log(JSON.stringify({ answers: answer.results.map((fact) => fact.answer), outside }));
});
`;

const ESM = `
import { FreshfactsClient, FreshfactsError } from 'freshfacts/client';
const client = new FreshfactsClient({ baseUrl: process.env.URL, apiKey: process.env.KEY });
try {
  await client.research({ query: 'Catania', k: 'ten' });
} catch (err) {
  console.log(JSON.stringify({ typed: err instanceof FreshfactsError, problem: err.problem }));
}
`;

// Compiles only if the package's types are found through its export map and are strict.
const TYPED = `
import { FreshfactsClient, type Fact, type SearchResponse } from 'freshfacts/client';
export async function newest(client: FreshfactsClient): Promise<string | null> {
  const answer: SearchResponse = await client.search({ query: 'q', timeline: true });
  const fact: Fact | undefined = answer.results[0];
  // @ts-expect-error query is required
  await client.search({ k: 10 });
  return fact ? fact.true_by : null;
}
`;

describe('the client package, packed and installed into an empty project without a registry', () => {
  let t: TestApp;
  let dir: string;
  let project: string;
  beforeAll(async () => {
    t = await startApp({ facts: CATANIA });
    dir = mkdtempSync(join(tmpdir(), 'freshfacts-pack-'));
    project = join(dir, 'consumer');
    mkdirSync(project);
    await inProject(CLIENT).npm('pack', '--pack-destination', dir);
    writeFileSync(join(project, 'package.json'), '{"name":"consumer","private":true}\n');
    const tarball = readdirSync(dir).find((name) => /^freshfacts-.*\.tgz$/.test(name));
    await inProject(project).npm(
      'install',
      '--offline',
      '--no-audit',
      '--no-fund',
      `../${tarball}`,
    );
  }, 120_000);
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('installs alone, under the MIT licence, with nothing else to fetch', () => {
    expect(
      readdirSync(join(project, 'node_modules')).filter((name) => !name.startsWith('.')),
    ).toEqual(['freshfacts']);
    const installed = join(project, 'node_modules', 'freshfacts');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      license: string;
      dependencies?: object;
    };
    expect(manifest.license).toBe('MIT');
    expect(manifest.dependencies).toBeUndefined();
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(existsSync(join(installed, 'dist', 'client', 'index.d.ts'))).toBe(true);
  });

  it('is required from CommonJS and searches the service, loading no module of its own', async () => {
    writeFileSync(join(project, 'search.cjs'), CJS);
    const { stdout } = await inProject(project).node('search.cjs', { URL: t.url, KEY: t.key });
    expect(JSON.parse(stdout)).toEqual({
      answers: ['Vincenzo Montella', 'Walter Zenga', 'Silvio Baldini'],
      outside: [join(project, 'search.cjs')],
    });
  });

  it('is imported from an ES module and throws typed problems', async () => {
    writeFileSync(join(project, 'research.mjs'), ESM);
    const { stdout } = await inProject(project).node('research.mjs', { URL: t.url, KEY: t.key });
    const { typed, problem } = JSON.parse(stdout) as { typed: boolean; problem: object };
    expect(typed).toBe(true);
    expect(problem).toMatchObject({
      type: '/problems/invalid-request',
      status: 422,
      errors: [{ loc: ['body', 'k'], msg: 'k must be an integer' }],
    });
  });

  it('type-checks a TypeScript consumer through the export map', async () => {
    writeFileSync(join(project, 'newest.ts'), TYPED);
    // No Node types: the client must compile for a browser or an edge runtime.
    const options = {
      strict: true,
      noEmit: true,
      module: 'node16',
      lib: ['ES2022', 'DOM'],
      types: [],
    };
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: options, files: ['newest.ts'] }),
    );
    const tsc = await exec(process.execPath, [TSC, '-p', '.'], { cwd: project }).catch(
      (err: { stdout: string }) => ({ stdout: err.stdout }),
    );
    expect(tsc.stdout).toBe('');
  });
});
