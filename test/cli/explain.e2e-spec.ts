import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../support/cli';
import { CATANIA } from '../support/corpus';

describe('bin/freshfacts facts explain', () => {
  it("prints the plan and timings of a search as the service's session runs it", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'freshfacts-explain-'));
    const env = { FRESHFACTS_DATA_DIR: join(dir, 'data'), DATABASE_URL: '' };
    try {
      const path = join(dir, 'facts.jsonl');
      writeFileSync(path, CATANIA.map((f) => JSON.stringify(f)).join('\n') + '\n');
      expect((await run(['ingest', path], env).done).code).toBe(0);
      const { code, out } = await run(
        ['facts', 'explain', 'Who coached Calcio Catania?', '--true-by-max', '2010-01-01'],
        env,
      ).done;
      expect(code).toBe(0);
      // The one-row statistics table is known as one row, and nothing is compiled.
      expect(out).toMatch(/Seq Scan on corpus_stats c {2}\(cost=[\d.]+ rows=1 /);
      expect(out).toMatch(/^Execution Time: [\d.]+ ms$/m);
      expect(out).not.toMatch(/JIT:/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bin/freshfacts bench --no-embedded', () => {
  it('needs a database to measure instead', async () => {
    const { code, err } = await run(['bench', '--facts', '10k', '--no-embedded'], {}).done;
    expect(code).toBe(2);
    expect(err).toContain('--no-embedded needs --database-url');
  });
});
