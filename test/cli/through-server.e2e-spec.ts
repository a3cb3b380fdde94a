import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Finished, run, serve } from '../support/cli';
import { fact } from '../support/corpus';

const TOKEN = 'admin-token-for-tests-0123456789';
// Each story spawns a dozen command-line processes; on a loaded shared machine one
// takes several seconds just to start.
jest.setTimeout(240_000);

/**
 * An operator's command line beside a running `serve` on the embedded store: with the
 * admin token it goes through the server's admin API and prints what it prints
 * offline; without it, it is refused as before and told of this way.
 */
describe('bin/freshfacts beside a running serve', () => {
  let dir: string;
  let env: Record<string, string>;
  let server: Awaited<ReturnType<typeof serve>> | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'freshfacts-beside-'));
    const seed = join(dir, 'seed.jsonl');
    writeFileSync(
      seed,
      JSON.stringify(fact('Who painted the Mona Lisa?', 'Leonardo', null)) + '\n',
    );
    env = {
      FRESHFACTS_DATA_DIR: join(dir, 'data'),
      DATABASE_URL: '',
      FRESHFACTS_SEED_FILE: seed,
      FRESHFACTS_SOURCES_WORKER: 'off',
      FRESHFACTS_ADMIN_TOKEN: TOKEN,
    };
    server = await serve(env);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = async (args: string[], extra: Record<string, string> = {}): Promise<Finished> =>
    run(args, { ...env, ...extra }).done;
  const ok = async (args: string[]) => {
    const done = await cli(args);
    expect([args.join(' '), done.code, done.err]).toEqual([args.join(' '), 0, expect.any(String)]);
    return done;
  };

  it('refuses without the admin token, naming both ways out', async () => {
    for (const args of [
      ['keys', 'list', '--email', 'ops@example.com'],
      ['ingest', join(dir, 'none.jsonl')],
      ['facts', 'show', '1'],
    ]) {
      const { code, err } = await cli(args, { FRESHFACTS_ADMIN_TOKEN: '' });
      expect(code).toBe(2);
      expect(err.trim().split('\n')).toHaveLength(1);
      expect(err).toMatch(/^freshfacts: the embedded database in .* is in use by process \d+/);
      expect(err).toContain('Stop it first');
      expect(err).toContain('with FRESHFACTS_ADMIN_TOKEN set to its admin token');
    }
    const wrong = await cli(['keys', 'list', '--email', 'ops@example.com'], {
      FRESHFACTS_ADMIN_TOKEN: 'another-token-of-24-characters-at-least',
    });
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain('refused FRESHFACTS_ADMIN_TOKEN');
  });

  it('ingests, retracts, restores and shows facts through the server', async () => {
    const path = join(dir, 'facts.jsonl');
    const cup = fact('Which team won cup final number 1?', 'Team 1', '2021-05-01');
    writeFileSync(
      path,
      [
        JSON.stringify(cup),
        '{"question": "broken"',
        '',
        JSON.stringify(fact('Which team won cup final number 2?', 'Team 2', '2021-06-01')),
        JSON.stringify(cup),
      ].join('\n') + '\n',
    );
    const ingested = await ok(['ingest', path]);
    expect(ingested.out).toBe('added 2, merged 1, rejected 1\n');
    expect(ingested.err).toContain(`${path}:2: not valid JSON`);

    const strict = await cli(['ingest', '--strict', path]);
    expect(strict.code).toBe(1);
    expect(strict.err).toContain('nothing was written');

    const found = await ok(['facts', 'find', 'cup final number 1']);
    const id = found.out.split('\t')[0];
    expect(found.out).toBe(`${id}\t2021-05-01\t${cup.question}\tTeam 1\n`);

    const retracted = await ok(['facts', 'retract', id, '--reason', 'wrong team']);
    expect(retracted.out).toMatch(/\nRETRACTED \S+ by admin:[0-9a-f]{12}: wrong team\n/);
    expect((await cli(['facts', 'retract', id, '--reason', 'again'])).err).toBe(
      `freshfacts: fact ${id} is already retracted\n`,
    );
    expect((await ok(['ingest', path])).out).toBe(
      'added 0, merged 1, rejected 1; skipped 2 retracted\n',
    );
    const search = await fetch(`http://127.0.0.1:${server!.port}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await keyOf('search@example.com')}` },
      body: JSON.stringify({ query: 'Which team won cup final number 1?', timeline: false }),
    });
    const answers = ((await search.json()) as { results: { answer: string }[] }).results;
    expect(answers.map((result) => result.answer)).not.toContain('Team 1');

    await ok(['facts', 'restore', id]);
    expect((await cli(['facts', 'show', '999999'])).err).toBe('freshfacts: no fact 999999\n');
  });

  it('manages keys, plans and sources through the server', async () => {
    const created = await ok(['keys', 'create', '--email', 'Ops@Example.com', '--name', 'ci']);
    expect(created.out).toMatch(/^ff_live_\S+\n$/);
    expect(created.err).toContain('API key for ops@example.com (shown once');
    const listed = await ok(['keys', 'list', '--email', 'ops@example.com']);
    expect(listed.out).toMatch(
      /^ff_live_\S+… {2}ci {2}created \S+ {2}last used never {2}active\n$/,
    );
    const prefix = listed.out.split('…')[0];
    expect((await ok(['keys', 'revoke', prefix])).out).toMatch(
      new RegExp(`^revoked ${prefix}… \\(created \\S+\\)\\n$`),
    );
    expect((await ok(['keys', 'list', '--email', 'nobody@example.com'])).out).toBe('');
    expect((await ok(['accounts', 'set-plan', 'ops@example.com', 'paid'])).out).toBe(
      'ops@example.com is now on the paid plan\n',
    );
    expect((await cli(['accounts', 'set-plan', 'ghost@example.com', 'paid'])).err).toBe(
      'freshfacts: no account for ghost@example.com\n',
    );

    const added = await ok([
      'sources',
      'add',
      'https://example.org/feed.xml',
      '--kind',
      'feed',
      '--every',
      '6h',
    ]);
    expect(added.out).toMatch(
      /^added source (\d+): feed https:\/\/example\.org\/feed\.xml every 6h\n$/,
    );
    expect((await cli(['sources', 'add', 'ftp://example.org/x', '--kind', 'feed'])).err).toBe(
      'freshfacts: a source must be an http(s) URL, got "ftp://example.org/x"\n',
    );
    const sources = await ok(['sources', 'list']);
    expect(sources.out).toMatch(
      /^\d+ {2}feed {2}https:\/\/example\.org\/feed\.xml\n {4}every 6h; last never run; next /,
    );
    expect((await cli(['sources', 'run', '--once'])).err).toContain('polls the sources itself');
    expect((await ok(['sources', 'remove', 'https://example.org/feed.xml'])).out).toMatch(
      /^removed source \d+: https:\/\/example\.org\/feed\.xml \(its facts stay\)\n$/,
    );
  });

  it('prints what the offline command prints once the server is gone', async () => {
    const id = (await ok(['facts', 'find', 'cup final number'])).out.split('\t')[0];
    const through = await Promise.all([
      ok(['facts', 'show', id]),
      ok(['facts', 'find', 'cup final number']),
      ok(['keys', 'list', '--email', 'ops@example.com']),
    ]);
    expect(through[0].out).toContain('  push admin:');
    await server!.stop();
    server = undefined;
    // One at a time: offline, each process takes the data folder.
    const offline = [];
    for (const args of [
      ['facts', 'show', id],
      ['facts', 'find', 'cup final number'],
      ['keys', 'list', '--email', 'ops@example.com'],
    ]) {
      offline.push(await ok(args));
    }
    expect(offline.map((done) => done.out)).toEqual(through.map((done) => done.out));
  });

  async function keyOf(email: string): Promise<string> {
    return (await ok(['keys', 'create', '--email', email])).out.trim();
  }
});
