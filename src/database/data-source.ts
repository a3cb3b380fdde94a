import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource, DataSourceOptions, MigrationExecutor } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { MIGRATIONS } from '../../migrations';
import { AppConfig } from '../config/config';
import { DataDirLock } from './data-dir-lock';
import { DatabaseSetupError } from './errors';
import { pgliteDriver } from './pglite-pool';
import { PreparingClient } from './preparing-client';
import { prepareServer, requirePgvector } from './server-setup';
import { EmbeddedDb, PGliteThread } from './pglite-thread';

export { DatabaseSetupError };

/**
 * Per-session settings the ranking query relies on. The HNSW scan goes on past its
 * first ef_search neighbours until it has as many candidates as the query asks for,
 * also when a wide date window filters them (order among them is restored by the
 * exact re-scoring). The walk's breadth is its cost: at 100k facts 40 finds 94% of
 * the 40 nearest that 400 finds, in 2.5 ms where 200 took 6.1, and ranks as well
 * (bench/README.md); one setting for every search, so none needs a transaction.
 */
export const SESSION_SETTINGS: Record<string, string> = {
  'hnsw.ef_search': '40',
  'hnsw.iterative_scan': 'relaxed_order',
  // A date window's walk of the graph stops after this many facts; one that found none
  // of the window's is followed by a scan (`semanticCandidates` in ranking-sql.ts).
  'hnsw.max_scan_tuples': '4000',
  // Each statement is planned once, for any values: planning cost 0.8 ms of a 1.7 ms
  // key check and 2–3 ms of a search. The ranking statement is written so that its one
  // good plan needs no values (ranking-sql.ts, `semanticCandidates`); PostgreSQL's
  // default, custom plans from the values, picked for date windows a plan that sorted
  // the whole window (300 ms instead of 10) and, on a server, cost estimates that
  // crossed jit_above_cost.
  plan_cache_mode: 'force_generic_plan',
  // Statements of a few milliseconds: compiling one took 50 ms of a 112 ms search.
  jit: 'off',
  // Parallel workers start in milliseconds and take the cores that concurrent searches
  // need; no statement of the service reads enough rows to gain from them.
  max_parallel_workers_per_gather: '0',
};

/** Opens the configured database and brings its schema up to date. */
/** The entity classes TypeORM maps; the database layer is given them, never imports them. */
export type EntityList = NonNullable<DataSourceOptions['entities']>;

/**
 * Opens the store the config names, migrated. Commands that only migrate or report
 * on the schema need no `entities`.
 */
export async function openDataSource(
  config: AppConfig,
  entities: EntityList = [],
): Promise<DataSource> {
  if (config.databaseUrl) {
    await prepareServer(config.databaseUrl, SESSION_SETTINGS, CONNECT_TIMEOUT_MS);
  }
  const dataSource = new DataSource(await dataSourceOptions(config, entities));
  await dataSource.initialize();
  try {
    if (!config.databaseUrl) await requirePgvector((sql, params) => dataSource.query(sql, params));
    await migrate(dataSource);
  } catch (err) {
    await closeDataSource(dataSource);
    throw err;
  }
  return dataSource;
}

export async function closeDataSource(dataSource: DataSource): Promise<void> {
  const embedded = embeddedOf.get(dataSource.options);
  if (dataSource.isInitialized) await dataSource.destroy();
  if (embedded && !embedded.pglite.closed) {
    await embedded.pglite.close();
    embedded.lock.release();
  }
}

/**
 * On the embedded store, records where this process serves HTTP beside its lock, so
 * that the command line can reach its admin API while it holds the folder.
 */
export function announceServer(
  app: { get(token: typeof DataSource): DataSource },
  url: string,
): void {
  embeddedOf.get(app.get(DataSource).options)?.lock.announce(url);
}

const embeddedOf = new WeakMap<object, { pglite: EmbeddedDb; lock: DataDirLock }>();

async function dataSourceOptions(
  config: AppConfig,
  entities: EntityList,
): Promise<DataSourceOptions> {
  const common = { type: 'postgres' as const, entities, migrations: MIGRATIONS };
  if (config.databaseUrl) return serverOptions(config, common);
  const dir = join(config.dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  const lock = DataDirLock.acquire(config.dataDir);
  try {
    const pglite = await PGliteThread.open(dir);
    for (const [name, value] of Object.entries(SESSION_SETTINGS)) {
      await pglite.query(`SELECT set_config($1, $2, false)`, [name, value]);
    }
    const options = { ...common, driver: pgliteDriver(pglite) };
    embeddedOf.set(options, { pglite, lock });
    return options;
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** A pool of connections to the PostgreSQL server of `DATABASE_URL`. */
function serverOptions(
  config: AppConfig,
  common: Omit<PostgresConnectionOptions, 'url'>,
): DataSourceOptions {
  // The session settings are the role's defaults in this database (prepareServer),
  // not a startup parameter, which PgBouncer refuses.
  return {
    ...common,
    url: config.databaseUrl,
    poolSize: config.dbPoolSize,
    // A request waits at most this long for a connection, then answers 503, rather
    // than hanging while the server is down; the pool reconnects by itself.
    extra: {
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      // Idle connections stay open (pg's pool closes them after 10 s by default). A
      // new backend pays for its start, its catalog caches, a plan of each statement
      // and the first touch of its memory: 3 ms more per search over its first
      // hundreds (100k), and after any pause of 10 s every connection was new.
      idleTimeoutMillis: 0,
      ...(config.dbPreparedStatements ? { Client: PreparingClient } : {}),
    },
  };
}

const CONNECT_TIMEOUT_MS = 5000;
/** pg_advisory_lock key of schema migrations ("ffmigr" in ASCII). */
const MIGRATION_LOCK = 0x66666d696772;

/**
 * Runs pending migrations, all in one transaction that first takes an advisory
 * lock: replicas starting together on one server take turns, the first migrates,
 * the others find nothing left to do, and a failed migration leaves nothing behind.
 */
async function migrate(dataSource: DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction();
    try {
      await runner.query(`SELECT pg_advisory_xact_lock($1)`, [MIGRATION_LOCK]);
      // On this runner, inside this transaction (the embedded pool has one connection).
      const executor = new MigrationExecutor(dataSource, runner);
      executor.transaction = 'none';
      await executor.executePendingMigrations();
      await runner.commitTransaction();
    } catch (err) {
      await runner.rollbackTransaction();
      throw err;
    }
  } finally {
    await runner.release();
  }
}
