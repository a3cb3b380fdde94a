import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { buildConfig } from '../../src/config/config';
import {
  DatabaseSetupError,
  openDataSource,
  SESSION_SETTINGS,
} from '../../src/database/data-source';
import { MaintenanceService } from '../../src/facts/maintenance.service';
import { SearchService } from '../../src/search/search.service';
import { startApp, TestApp } from '../support/app';
import { serve } from '../support/cli';
import { CATANIA } from '../support/corpus';
import { freshDatabase, hasPgvector, POSTGRES_URL } from '../support/postgres';

// The machine's PostgreSQL 15 with pgvector built on it, as an operator runs the
// service. A fresh machine has no pgvector: then every story here says so and passes
// (the wire-served PGlite run covers the server code path there).
let available = false;
beforeAll(async () => {
  available = await hasPgvector();
  if (!available) console.warn(`skipped: no pgvector on the PostgreSQL at ${POSTGRES_URL}`);
});

describe('start-up on a PostgreSQL server', () => {
  it('refuses a role that may not create the extension, with the statement a superuser runs', async () => {
    if (!available) return;
    const role = `ff_plain_${randomBytes(4).toString('hex')}`;
    const setup = await new DataSource({ type: 'postgres', url: POSTGRES_URL }).initialize();
    await setup.query(`CREATE ROLE ${role} LOGIN`);
    // The role owns the database, yet pgvector is not a trusted extension.
    const db = await freshDatabase('plain', role);
    try {
      const opening = openDataSource(buildConfig({ DATABASE_URL: db.url(role) }));
      await expect(opening).rejects.toThrow(DatabaseSetupError);
      await expect(opening).rejects.toThrow(
        new RegExp(
          `role "${role}" may not create.*superuser must run.*CREATE EXTENSION vector;`,
          's',
        ),
      );
    } finally {
      await db.drop();
      await setup.query(`DROP ROLE ${role}`);
      await setup.destroy();
    }
  });

  it('refuses a pgvector older than the schema needs, naming both versions', async () => {
    if (!available) return;
    const db = await freshDatabase('oldvector');
    try {
      // An extension created by an older package and never updated: its catalog entry
      // is what ALTER EXTENSION vector UPDATE would move on.
      await db.admin.query(`CREATE EXTENSION vector`);
      await db.admin.query(`UPDATE pg_extension SET extversion = '0.7.4' WHERE extname = 'vector'`);
      const opening = openDataSource(buildConfig({ DATABASE_URL: db.url() }));
      await expect(opening).rejects.toThrow(
        /version 0\.7\.4 .*needs 0\.8\.0 or newer for iterative index scans.*ALTER EXTENSION vector UPDATE/s,
      );
    } finally {
      await db.drop();
    }
  });
});

describe('searches on a PostgreSQL server', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let server: TestApp;
  let embedded: TestApp;
  beforeAll(async () => {
    if (!available) return;
    db = await freshDatabase('search');
    server = await startApp({ facts: CATANIA, env: { DATABASE_URL: db.url() } });
    embedded = await startApp({ facts: CATANIA });
  });
  afterAll(async () => {
    await server?.close();
    await embedded?.close();
    await db?.drop();
  });

  it('answers as the embedded store does', async () => {
    if (!available) return;
    for (const body of [
      { query: 'Who coached Calcio Catania?' },
      { query: 'Who coached Calcio Catania?', true_by_max: '2010-01-01', timeline: false },
    ]) {
      const answers = await Promise.all(
        [server, embedded].map((t) =>
          request(t.url).post('/v1/search').set('Authorization', `Bearer ${t.key}`).send(body),
        ),
      );
      expect(answers[0].status).toBe(200);
      expect(answers[0].body).toEqual(answers[1].body);
    }
  });

  it("runs every connection with the service's session settings", async () => {
    if (!available) return;
    const source = server.app.get(DataSource);
    const runners = [0, 1, 2].map(() => source.createQueryRunner());
    for (const runner of runners) {
      for (const [name, value] of Object.entries(SESSION_SETTINGS)) {
        const [row] = (await runner.query(`SELECT current_setting($1) AS v`, [name])) as {
          v: string;
        }[];
        expect([name, row.v]).toEqual([name, value]);
      }
    }
    await Promise.all(runners.map((runner) => runner.release()));
  });

  it('has statistics of every table the ranking reads, and a plan without JIT or workers', async () => {
    if (!available) return;
    const tables = await db.admin.query<{ relname: string; reltuples: number }[]>(
      `SELECT relname, reltuples FROM pg_class
       WHERE relname IN ('facts', 'fact_terms', 'lexeme_stats', 'corpus_stats', 'fact_months')`,
    );
    expect(tables).toHaveLength(5);
    expect(Object.fromEntries(tables.map((t) => [t.relname, t.reltuples]))).toMatchObject({
      corpus_stats: 1,
      facts: CATANIA.length,
    });
    const plan = await server.app
      .get(SearchService)
      .explain({ query: 'Who coached Calcio Catania?', true_by_max: '2010-01-01' });
    expect(plan).toMatch(/Seq Scan on corpus_stats c {2}\(cost=[\d.]+ rows=1 /);
    expect(plan).not.toMatch(/JIT:|Workers Planned/);
  });
});

describe('statements on a PostgreSQL server', () => {
  it('are prepared once per connection, unless turned off', async () => {
    if (!available) return;
    const db = await freshDatabase('prepared');
    try {
      const prepared = async (setting: string) => {
        const t = await startApp({
          facts: CATANIA,
          env: {
            DATABASE_URL: db.url(),
            FRESHFACTS_DB_POOL_SIZE: '1',
            FRESHFACTS_DB_PREPARED_STATEMENTS: setting,
          },
        });
        try {
          for (let i = 0; i < 3; i++) {
            await request(t.url)
              .post('/v1/search')
              .set('Authorization', `Bearer ${t.key}`)
              .send({ query: 'Who coached Calcio Catania?' })
              .expect(200);
          }
          // The pool's one connection, which ran the searches.
          return await t.app
            .get(DataSource)
            .query<{ statement: string }[]>(
              `SELECT statement FROM pg_prepared_statements WHERE name LIKE 'ff\\_%'`,
            );
        } finally {
          await t.close();
        }
      };
      const on = await prepared('on');
      expect(on.some((row) => row.statement.includes('WITH terms AS'))).toBe(true);
      expect(await prepared('off')).toEqual([]);
    } finally {
      await db.drop();
    }
  });
});

describe('index builds on a PostgreSQL server', () => {
  it('give the build its own memory: sized from the facts, or as set', async () => {
    if (!available) return;
    const db = await freshDatabase('build');
    const apps: TestApp[] = [];
    try {
      // Every CREATE INDEX records the memory its transaction had.
      await db.admin.query(`CREATE TABLE build_memory (setting text)`);
      await db.admin.query(
        `CREATE FUNCTION record_build_memory() RETURNS event_trigger LANGUAGE plpgsql AS $$
         BEGIN INSERT INTO public.build_memory VALUES (current_setting('maintenance_work_mem')); END $$`,
      );
      await db.admin.query(
        `CREATE EVENT TRIGGER record_build_memory ON ddl_command_start
         WHEN TAG IN ('CREATE INDEX') EXECUTE FUNCTION record_build_memory()`,
      );
      // Below what the build is given, so that the setting shows who set it.
      await db.admin.query(`ALTER DATABASE ${db.name} SET maintenance_work_mem = '1MB'`);
      const rebuilt = async (env: Record<string, string>) => {
        const t = await startApp({ facts: CATANIA, env: { DATABASE_URL: db.url(), ...env } });
        apps.push(t);
        await db.admin.query(`DELETE FROM build_memory`);
        await t.app.get(MaintenanceService).dropSearchIndexes();
        await t.app.get(MaintenanceService).ensureSearchIndexes();
        const rows = await db.admin.query<{ setting: string }[]>(
          `SELECT setting FROM build_memory`,
        );
        return rows.map((row) => row.setting);
      };
      // A few facts need less than the floor of 64 MB.
      expect(await rebuilt({})).toEqual(['64MB', '64MB']);
      expect(await rebuilt({ FRESHFACTS_INDEX_MEMORY_MB: '300' })).toEqual(['300MB', '300MB']);
      // The service's other sessions keep the database's own setting.
      const [{ setting }] = await apps[1].app
        .get(DataSource)
        .query<{ setting: string }[]>(`SELECT current_setting('maintenance_work_mem') AS setting`);
      expect(setting).toBe('1MB');
    } finally {
      for (const t of apps) await t.close();
      await db.drop();
    }
  });
});

describe('connections warmed before the first search', () => {
  // What a new backend pays on its first searches (plans, catalog caches, the first
  // touch of shared memory) is paid at start-up, on every connection of the pool.
  it('run every form of the ranking statement on each pooled connection', async () => {
    if (!available) return;
    const db = await freshDatabase('warm');
    const t = await startApp({
      facts: CATANIA,
      env: { DATABASE_URL: db.url(), FRESHFACTS_DB_POOL_SIZE: '3' },
    });
    try {
      await t.app.get(SearchService).warm();
      // Held at once, the three runners are the pool's three connections.
      const runners = [0, 1, 2].map(() => t.app.get(DataSource).createQueryRunner());
      const prepared: number[] = [];
      for (const runner of runners) {
        const [{ count }] = (await runner.query(
          `SELECT count(*)::int AS count FROM pg_prepared_statements
           WHERE statement LIKE '%WITH terms AS%'`,
        )) as { count: number }[];
        prepared.push(count);
      }
      await Promise.all(runners.map((runner) => runner.release()));
      // k 10, 20 and 100; no dates, and a scanned and a walked window each with a lower
      // bound, an upper bound and both: 3 × 7 distinct statements.
      expect(prepared).toEqual([21, 21, 21]);
    } finally {
      await t.close();
      await db.drop();
    }
  });

  it('by `serve` before it listens', async () => {
    if (!available) return;
    const db = await freshDatabase('serve_warm');
    const dir = mkdtempSync(join(tmpdir(), 'freshfacts-warm-'));
    try {
      const server = await serve({
        DATABASE_URL: db.url(),
        FRESHFACTS_DB_POOL_SIZE: '3',
        FRESHFACTS_DATA_DIR: dir,
        FRESHFACTS_SEED_FILE: '',
        FRESHFACTS_SOURCES_WORKER: 'off',
      });
      try {
        // Nothing has called it yet: each connection's last statement is the warm-up's.
        const backends = await db.admin.query<{ query: string }[]>(
          `SELECT query FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid()
             AND backend_type = 'client backend'`,
        );
        expect(backends.map((b) => b.query.trimStart().slice(0, 13))).toEqual(
          Array(3).fill('WITH terms AS'),
        );
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await db.drop();
    }
  });
});
