import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { buildConfig } from '../../src/config/config';
import {
  closeDataSource,
  DatabaseSetupError,
  openDataSource,
} from '../../src/database/data-source';
import { IngestService } from '../../src/facts/ingest.service';
import { startApp, TestApp } from '../support/app';
import { fact } from '../support/corpus';
import { POSTGRES_URL } from '../support/postgres';

describe('the database', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('runs on the driver the test run asked for, with the schema migrated', async () => {
    const db = t.app.get(DataSource);
    const wire = process.env.FRESHFACTS_TEST_DB === 'wire';
    expect(Boolean((db.options as { url?: string }).url)).toBe(wire);
    const tables = await db.query<{ tablename: string }[]>(
      `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`,
    );
    expect(tables.map((row) => row.tablename)).toEqual(
      expect.arrayContaining([
        'accounts',
        'api_keys',
        'corpus_stats',
        'facts',
        'fact_terms',
        'fact_months',
        'lexeme_stats',
        'migrations',
      ]),
    );
    const indexes = await db.query<{ indexdef: string }[]>(
      `SELECT indexdef FROM pg_indexes WHERE tablename IN ('facts', 'fact_terms')`,
    );
    const defs = indexes.map((row) => row.indexdef).join('\n');
    expect(defs).toMatch(
      /ON public.fact_terms USING btree \(term\) INCLUDE \(fact_id, true_by, in_question\)/,
    );
    expect(defs).toMatch(/USING hnsw \(embedding vector_cosine_ops\)/);
  });

  it('lets the planner use the HNSW index for an unbounded vector search', async () => {
    const db = t.app.get(DataSource);
    const plan = await db.query<Record<string, string>[]>(
      `EXPLAIN SELECT id FROM facts ORDER BY embedding <=> array_fill(1, ARRAY[128])::int4[]::vector LIMIT 100`,
    );
    expect(plan.map((row) => Object.values(row)[0]).join('\n')).toMatch(/facts_embedding_idx/);
  });

  // PGlite 0.3.16 loses the rest of a request after a message that ends on a multiple of
  // 8 KiB, in process and over the wire alike (a 1M-fact ingest lost a batch of 1,000
  // without an error): every length of value in a range wider than the statement's
  // other messages puts the end of each of them there in turn.
  it('stores values of every length around 8 KiB multiples, none lost', async () => {
    const db = t.app.get(DataSource);
    await db.query(`CREATE TEMP TABLE bodies (body text)`);
    const lengths = Array.from({ length: 300 }, (_, i) => 2 * 8192 - 200 + i);
    for (const n of lengths) {
      const rows = await db.query<{ n: number }[]>(
        `INSERT INTO bodies (body) VALUES ($1) RETURNING length(body) AS n`,
        ['x'.repeat(n)],
      );
      expect(rows).toEqual([{ n }]);
    }
    const [{ stored }] = await db.query<{ stored: number }[]>(
      `SELECT count(DISTINCT length(body))::int AS stored FROM bodies`,
    );
    expect(stored).toBe(lengths.length);
  });

  it('rebuilds the vector index after a bulk load into an empty table', async () => {
    const db = t.app.get(DataSource);
    const dir = mkdtempSync(join(tmpdir(), 'freshfacts-bulk-'));
    try {
      const file = join(dir, 'facts.jsonl');
      writeFileSync(
        file,
        [fact('Who won the 2023 Tour de France?', 'Jonas Vingegaard', '2023-07-23')]
          .map((f) => JSON.stringify(f))
          .join('\n'),
      );
      const summary = await t.app.get(IngestService).ingestFile(file);
      expect(summary.added).toBe(1);
      const indexes = await db.query<{ indexname: string }[]>(
        `SELECT indexname FROM pg_indexes WHERE tablename = 'facts'`,
      );
      expect(indexes.map((row) => row.indexname)).toContain('facts_embedding_idx');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reopens an existing embedded database without migrating twice', async () => {
    if (process.env.FRESHFACTS_TEST_DB === 'wire') return;
    const dir = mkdtempSync(join(tmpdir(), 'freshfacts-reopen-'));
    try {
      const config = buildConfig({ FRESHFACTS_DATA_DIR: dir });
      await closeDataSource(await openDataSource(config));
      const again = await openDataSource(config);
      const rows = await again.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM migrations`);
      expect(rows[0].n).toBe(MIGRATIONS.length);
      await closeDataSource(again);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the embedded database folder', () => {
  it('admits one process at a time and takes over a lock left by a dead one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'freshfacts-lock-'));
    try {
      const config = buildConfig({ FRESHFACTS_DATA_DIR: dir, DATABASE_URL: '' });
      const first = await openDataSource(config);
      await expect(openDataSource(config)).rejects.toThrow(/in use by process \d+/);
      await closeDataSource(first);
      writeFileSync(join(dir, 'freshfacts.lock'), '999999999');
      await closeDataSource(await openDataSource(config));
      expect(existsSync(join(dir, 'freshfacts.lock'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The machine's PostgreSQL 15 (127.0.0.1:5432) has no pgvector package: exactly the
// server an operator might point freshfacts at by mistake.
describe('a PostgreSQL server without pgvector', () => {
  const url = POSTGRES_URL;

  it('refuses to start, saying how to get the extension', async () => {
    const probe = new Client({ connectionString: url });
    await probe.connect();
    const available = await probe.query(
      `SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`,
    );
    await probe.end();
    if (available.rowCount) {
      console.warn(`skipped: the PostgreSQL at ${url} has pgvector`);
      return;
    }
    const config = buildConfig({ DATABASE_URL: url });
    const opening = openDataSource(config);
    await expect(opening).rejects.toThrow(DatabaseSetupError);
    await expect(opening).rejects.toThrow(/pgvector.*apt install postgresql-<version>-pgvector/s);
  });
});
