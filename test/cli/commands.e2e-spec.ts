import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, serve } from '../support/cli';
import { CATANIA, fact, OTHER } from '../support/corpus';

describe('bin/freshfacts ingest', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'freshfacts-cli-'));
    env = { FRESHFACTS_DATA_DIR: join(dir, 'data'), DATABASE_URL: '' };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function file(lines: string[]): string {
    const path = join(dir, 'facts.jsonl');
    writeFileSync(path, lines.join('\n') + '\n');
    return path;
  }

  const good = (i: number) =>
    JSON.stringify(fact(`Which team won cup final number ${i}?`, `Team ${i}`, '2021-05-01'));

  it('skips and lists bad lines by number, and summarises', async () => {
    const path = file([
      good(1),
      '{"question": "broken"',
      good(2),
      JSON.stringify({ ...fact('q?', 'a', null), true_by: 'soon' }),
      good(1),
    ]);
    const { code, out, err } = await run(['ingest', path], env).done;
    expect(code).toBe(0);
    expect(err).toContain(`${path}:2: not valid JSON`);
    expect(err).toContain(`${path}:4: true_by must be a day as YYYY-MM-DD`);
    // Five lines read, five counted: the repeat of line 1 is merged into it.
    expect(out).toContain('added 2, merged 1, rejected 2');
    const again = await run(['ingest', path], env).done;
    expect(again.out).toContain('added 0, merged 3, rejected 2');
  });

  it('keeps a fact for its valid sources and says how many malformed URLs it dropped', async () => {
    const kept = fact('Which team won cup final number 7?', 'Team 7', '2021-05-01');
    const path = file([
      JSON.stringify({ ...kept, sources: [...kept.sources, 'not a url'] }),
      JSON.stringify({ ...fact('q?', 'a', null), sources: ['not a url'] }),
    ]);
    const { code, out, err } = await run(['ingest', path], env).done;
    expect(code).toBe(0);
    expect(err).toContain(`${path}:2: each source must be an http(s) URL`);
    expect(out).toContain('added 1, merged 0, rejected 1; dropped 1 malformed source URL\n');
  });

  it('refuses the whole file under --strict', async () => {
    const path = file([good(1), 'nonsense']);
    const strict = await run(['ingest', '--strict', path], env).done;
    expect(strict.code).toBe(1);
    expect(strict.err).toContain(`${path}:2: not valid JSON`);
    expect(strict.err).toContain('nothing was written');
    const relaxed = await run(['ingest', path], env).done;
    expect(relaxed.out).toContain('added 1,');
  });

  it('says clearly when the file cannot be read', async () => {
    const { code, err } = await run(['ingest', join(dir, 'missing.jsonl')], env).done;
    expect(code).toBe(2);
    expect(err).toMatch(/freshfacts: cannot read .*missing\.jsonl: ENOENT/);
  });

  it('converges after being killed with SIGKILL mid-file', async () => {
    const total = 600;
    const path = file(Array.from({ length: total }, (_, i) => good(i)));
    const first = run(['ingest', path], env);
    await new Promise<void>((resolve) =>
      first.child.stderr!.on(
        'data',
        (chunk: Buffer) => chunk.toString().includes('committed') && resolve(),
      ),
    );
    first.child.kill('SIGKILL');
    await first.done;
    const second = await run(['ingest', path], env).done;
    expect(second.code).toBe(0);
    const [, added, merged] = /added (\d+), merged (\d+)/.exec(second.out)!.map(Number);
    expect(merged).toBeGreaterThan(0);
    expect(added + merged).toBe(total);
    const third = await run(['ingest', path], env).done;
    expect(third.out).toContain(`added 0, merged ${total}, rejected 0`);
  }, 180_000);
});

describe('bin/freshfacts keys and accounts', () => {
  it('creates a key shown once, revokes it by prefix and moves the account between plans', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'freshfacts-cli-'));
    const env = { FRESHFACTS_DATA_DIR: dir, DATABASE_URL: '' };
    try {
      const created = await run(
        ['keys', 'create', '--email', 'Ops@Example.com', '--name', 'ci'],
        env,
      ).done;
      expect(created.code).toBe(0);
      const key = created.out.trim();
      expect(key).toMatch(/^ff_live_[A-Za-z0-9_-]{43}$/);
      const listed = await run(['keys', 'list', '--email', 'ops@example.com'], env).done;
      expect(listed.out).toContain(key.slice(0, 16));
      expect(listed.out).not.toContain(key);
      const revoked = await run(['keys', 'revoke', key.slice(0, 16)], env).done;
      expect(revoked.out).toContain('revoked');
      const missing = await run(['keys', 'revoke', 'ff_live_nothing'], env).done;
      expect(missing.code).toBe(2);
      expect(missing.err).toContain('no such key');
      const paid = await run(['accounts', 'set-plan', 'OPS@example.com', 'paid'], env).done;
      expect(paid.out).toContain('ops@example.com is now on the paid plan');
      const unknownPlan = await run(['accounts', 'set-plan', 'ops@example.com', 'gold'], env).done;
      expect(unknownPlan.code).toBe(2);
      expect(unknownPlan.err).toContain('plan must be free or paid');
      const nobody = await run(['accounts', 'set-plan', 'nobody@example.com', 'paid'], env).done;
      expect(nobody.code).toBe(2);
      expect(nobody.err).toContain('no account for nobody@example.com');
      const bad = await run(['keys', 'create', '--email', 'not-an-email'], env).done;
      expect(bad.code).toBe(2);
      expect(bad.err).toContain('not an email address');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bin/freshfacts reembed', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'freshfacts-reembed-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a store of the vectors of another model, then converts it and serves again', async () => {
    const path = join(dir, 'facts.jsonl');
    const questions = Array.from({ length: 30 }, (_, i) => `Who won cup final number ${i}?`);
    writeFileSync(
      path,
      questions.map((q, i) => JSON.stringify(fact(q, `Team ${i}`, '2021-05-01'))).join('\n'),
    );
    const env = { FRESHFACTS_DATA_DIR: join(dir, 'data'), DATABASE_URL: '' };
    const teacher = { ...env, FRESHFACTS_EMBEDDER: 'use-lite' };
    expect((await run(['ingest', path], teacher).done).out).toContain('added 30,');

    const refused = await run(['facts', 'find', 'cup final'], env).done;
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('embedded by use-lite');
    expect(refused.err).toContain('bin/freshfacts reembed');

    const converted = await run(['reembed'], env).done;
    expect(converted.code).toBe(0);
    expect(converted.out).toContain('re-embedded 30 facts');
    const found = await run(['facts', 'find', 'cup final number 7'], env).done;
    expect(found.code).toBe(0);
    expect(found.out).toContain('Who won cup final number 7?');
    // and the other way back, for an operator who wants the full encoder
    expect((await run(['facts', 'find', 'cup'], teacher).done).code).toBe(2);
    expect((await run(['reembed'], teacher).done).out).toContain('re-embedded 30 facts');
  }, 180_000);
});

describe('bin/freshfacts eval', () => {
  it('reports recall, first answers and facts outside the window on a fresh store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'freshfacts-eval-'));
    try {
      const facts = join(dir, 'facts.jsonl');
      const queries = join(dir, 'queries.jsonl');
      writeFileSync(
        facts,
        [CATANIA[1], CATANIA[2], OTHER[1]].map((f) => JSON.stringify(f)).join('\n'),
      );
      writeFileSync(
        queries,
        [
          {
            query: 'Who is the head coach of Calcio Catania?',
            expect_answer_contains: 'Montella',
            expect_first_answer_contains: 'Montella',
            note: 'timeqa-time-sensitive: x',
          },
          {
            query: 'Who coached Calcio Catania?',
            expect_answer_contains: 'Zenga',
            expect_first_answer_contains: 'Zenga',
            true_by_max: '2010-06-30',
            note: 'timeqa-time-sensitive: y',
          },
          {
            query: 'World Cup host country',
            expect_answer_contains: 'Qatar',
            note: 'rtqa-keywords: z',
          },
        ]
          .map((q) => JSON.stringify(q))
          .join('\n'),
      );
      const { code, out } = await run(['eval', queries, '--facts', facts, '--json'], {
        FRESHFACTS_DATA_DIR: join(dir, 'unused'),
      }).done;
      expect(code).toBe(0);
      const report = JSON.parse(out) as Record<
        string,
        { queries: number; recallAt10: number; firstCorrect: number; outsideWindow: number }
      >;
      expect(report.all).toMatchObject({
        queries: 3,
        recallAt10: 1,
        firstCorrect: 1,
        outsideWindow: 0,
      });
      expect(report['timeqa-time-sensitive windowed'].queries).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bin/freshfacts eval on the current store', () => {
  it('loads the shipped facts into an empty store first, rather than scoring nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'freshfacts-eval-'));
    try {
      const { code, out, err } = await run(['eval', 'corpus/queries-dev.jsonl', '--json'], {
        FRESHFACTS_DATA_DIR: join(dir, 'data'),
        DATABASE_URL: '',
      }).done;
      expect(err).toContain('the store holds no facts; loading');
      expect(code).toBe(0);
      const report = JSON.parse(out) as Record<string, { queries: number; recallAt10: number }>;
      expect(report.all.queries).toBe(290);
      expect(report.all.recallAt10).toBeGreaterThan(0.85);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('bin/freshfacts bench', () => {
  it('says which option is wrong before doing any work', async () => {
    const sizes = await run(['bench', '--facts', 'lots'], {}).done;
    expect(sizes.code).toBe(2);
    expect(sizes.err).toContain('--facts must be a whole number from 100 to 10M');
    const levels = await run(['bench', '--facts', '10k', '--concurrency', '1,0'], {}).done;
    expect(levels.code).toBe(2);
    expect(levels.err).toContain('--concurrency must be a positive integer (got "0")');
  });
});

describe('bin/freshfacts serve', () => {
  it('loads the seed file into an empty database, answers, and stops cleanly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'freshfacts-serve-'));
    const seed = join(dir, 'seed.jsonl');
    writeFileSync(
      seed,
      JSON.stringify(fact('Which country hosted the 2022 FIFA World Cup?', 'Qatar', '2022-11-20')) +
        '\n',
    );
    const env = {
      FRESHFACTS_DATA_DIR: join(dir, 'data'),
      DATABASE_URL: '',
      FRESHFACTS_SEED_FILE: seed,
    };
    try {
      const key = (
        await run(['keys', 'create', '--email', 'serve@example.com'], env).done
      ).out.trim();
      const server = await serve(env);
      expect(server.log()).toContain('loaded 1 facts');
      const response = await fetch(`http://127.0.0.1:${server.port}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'World Cup 2022 host' }),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { results: { answer: string }[] }).results[0].answer).toBe(
        'Qatar',
      );
      // Nest closes the app (database, lock) and then re-raises the signal.
      const stopped = await server.stop();
      expect(stopped.code === 0 || stopped.signal === 'SIGTERM').toBe(true);
      expect(existsSync(join(dir, 'data', 'freshfacts.lock'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says only that the data folder is in use when another serve holds it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'freshfacts-serve-'));
    const env = {
      FRESHFACTS_DATA_DIR: join(dir, 'data'),
      DATABASE_URL: '',
      FRESHFACTS_SEED_FILE: '',
    };
    try {
      const first = await serve(env);
      const second = await run(['serve', '--host', '127.0.0.1'], { PORT: '0', ...env }).done;
      expect(second.code).toBe(2);
      expect(second.err.trim()).toMatch(
        /^freshfacts: the embedded database in .* is in use by process \d+/,
      );
      // The one line alone: no stack trace, no logged error before it.
      expect(second.err.trim().split('\n')).toHaveLength(1);
      expect(second.out).not.toMatch(/ERROR|ExceptionHandler|\n\s+at /);
      await first.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
