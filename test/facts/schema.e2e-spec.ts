import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { buildConfig } from '../../src/config/config';
import { closeDataSource, openDataSource } from '../../src/database/data-source';
import { MaintenanceService } from '../../src/facts/maintenance.service';
import { startApp, TestApp } from '../support/app';
import { CATANIA } from '../support/corpus';

/**
 * The service rebuilds parts of the facts tables itself, from the live DDL of
 * src/facts/schema.ts; the migrations hold frozen copies of the same DDL. Each rebuild
 * must leave the schema the migrations build, or a later migration would be undone
 * silently by the next start-up, bulk load or `reembed`.
 */
describe('the facts schema the service rebuilds', () => {
  let migrated: Schema;
  let t: TestApp;
  // Two stores start, one after the other: each has its own time.
  beforeAll(async () => {
    migrated = await migratedSchema();
  }, 120_000);
  beforeAll(async () => {
    t = await startApp({ facts: CATANIA });
  }, 120_000);
  afterAll(() => t?.close());

  it('is read whole: columns, the bits generated from the vector, and the search indexes', () => {
    expect(migrated.columns).toContainEqual(
      expect.objectContaining({ column: 'embedding_bits', generated: 's' }),
    );
    expect(migrated.indexes.map((index) => index.name)).toEqual(
      expect.arrayContaining(['facts_embedding_idx', 'fact_terms_term_idx', 'facts_day_bits_idx']),
    );
  });

  it('is the migrated one after start-up gave the embedding column the encoder’s length', async () => {
    expect(await schemaOf(t.app.get(DataSource))).toEqual(migrated);
  });

  it('is the migrated one after the search indexes are dropped and built again', async () => {
    const maintenance = t.app.get(MaintenanceService);
    await maintenance.dropSearchIndexes();
    await maintenance.ensureSearchIndexes();
    expect(await schemaOf(t.app.get(DataSource))).toEqual(migrated);
  });

  it('is the migrated one after every fact is re-embedded', async () => {
    await t.app.get(MaintenanceService).reembed(() => undefined);
    expect(await schemaOf(t.app.get(DataSource))).toEqual(migrated);
  });
});

interface Schema {
  columns: Record<string, unknown>[];
  indexes: { name: string; definition: string }[];
}

/** The schema the migrations alone build, in a fresh embedded store nothing has started on. */
async function migratedSchema(): Promise<Schema> {
  const dir = mkdtempSync(join(tmpdir(), 'freshfacts-schema-'));
  try {
    const db = await openDataSource(buildConfig({ FRESHFACTS_DATA_DIR: dir, DATABASE_URL: '' }));
    try {
      return await schemaOf(db);
    } finally {
      await closeDataSource(db);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The columns (by name: a rebuilt column moves to the end) and indexes of the tables
 * the service rebuilds parts of. A vector's length is the encoder's, not the schema's.
 */
async function schemaOf(db: DataSource): Promise<Schema> {
  const columns = await db.query<Record<string, unknown>[]>(
    `SELECT c.relname AS table, a.attname AS column,
            regexp_replace(format_type(a.atttypid, a.atttypmod), '^vector\\(\\d+\\)$', 'vector')
              AS type,
            a.attnotnull AS not_null, a.attgenerated AS generated,
            pg_get_expr(d.adbin, d.adrelid) AS expression
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
     LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE c.relname = ANY ($1::text[]) AND c.relkind = 'r'
       AND c.relnamespace = to_regnamespace(current_schema())
       AND a.attnum > 0 AND NOT a.attisdropped
     ORDER BY 1, 2`,
    [TABLES],
  );
  const indexes = await db.query<{ name: string; definition: string }[]>(
    `SELECT indexname AS name, indexdef AS definition FROM pg_indexes
     WHERE tablename = ANY ($1::text[]) AND schemaname = current_schema() ORDER BY 1`,
    [TABLES],
  );
  return { columns, indexes };
}

const TABLES = ['facts', 'fact_terms', 'fact_months', 'corpus_stats'];
