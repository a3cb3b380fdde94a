import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { createApp } from '../../src/app';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { AppConfig, buildConfig } from '../../src/config/config';
import { IngestService } from '../../src/facts/ingest.service';
import { serverDatabase, startSharedWireServer } from './wire-server';

export interface TestApp {
  app: INestApplication;
  /** http://127.0.0.1:PORT of the real server. */
  url: string;
  /** An active key of tester@example.com. */
  key: string;
  config: AppConfig;
  close(): Promise<void>;
}

/**
 * The whole service on a real loopback port and a fresh database: in-process PGlite,
 * or with FRESHFACTS_TEST_DB=wire, PGlite served over the PostgreSQL wire protocol
 * and reached through DATABASE_URL and the `pg` driver, as a server would be.
 */
export async function startApp(
  options: { facts?: unknown[]; env?: Record<string, string> } = {},
): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'freshfacts-test-'));
  const wire = process.env.FRESHFACTS_TEST_DB === 'wire' ? await startWireServer(dir) : undefined;
  const config = buildConfig({
    FRESHFACTS_DATA_DIR: dir,
    FRESHFACTS_SEED_FILE: '',
    FRESHFACTS_LOG_LEVEL: process.env.FRESHFACTS_TEST_LOG ?? 'error',
    ...(wire ? { DATABASE_URL: wire.url, FRESHFACTS_DB_POOL_SIZE: '4', ...SHARED_SESSION } : {}),
    ...options.env,
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as { port: number }).port;
  if (options.facts) await app.get(IngestService).ingestValues(options.facts);
  const { key } = await app.get(ApiKeysService).create('tester@example.com');
  return {
    app,
    url: `${config.tlsCertFile ? 'https' : 'http'}://127.0.0.1:${port}`,
    key,
    config,
    async close() {
      await app.close();
      await wire?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The wire-served PGlite has one session for all its clients, like PgBouncer in
 * transaction mode: statements prepared by name on one connection would collide there.
 */
const SHARED_SESSION = { FRESHFACTS_DB_PREPARED_STATEMENTS: 'off' };

/** A PostgreSQL-protocol server backed by PGlite, configured as a real server would be. */
export async function startWireServer(
  dir: string,
): Promise<{ url: string; stop(): Promise<void> }> {
  const db = await serverDatabase(dir);
  const server = await startSharedWireServer(db);
  return {
    url: `postgres://postgres@127.0.0.1:${server.port}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

/**
 * One replica of the API on the database server at `port`, with its own pool and
 * data folder: what `bin/freshfacts serve` with DATABASE_URL starts.
 */
export async function startReplica(
  port: number,
  dataDir: string,
  env: Record<string, string> = {},
): Promise<{ app: INestApplication; url: string }> {
  const app = await createApp(
    buildConfig({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`,
      ...SHARED_SESSION,
      FRESHFACTS_DATA_DIR: dataDir,
      FRESHFACTS_SEED_FILE: '',
      FRESHFACTS_LOG_LEVEL: process.env.FRESHFACTS_TEST_LOG ?? 'error',
      ...env,
    }),
  );
  await app.listen(0, '127.0.0.1');
  const { port: http } = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${http}` };
}
