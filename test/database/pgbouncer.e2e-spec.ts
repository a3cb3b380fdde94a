import request from 'supertest';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { SESSION_SETTINGS } from '../../src/database/data-source';
import { startApp, TestApp } from '../support/app';
import { CATANIA } from '../support/corpus';
import { count, fire } from '../support/load';
import { hasPgbouncer, PGBOUNCER, startPgbouncer } from '../support/pgbouncer';
import { freshDatabase, hasPgvector, POSTGRES_URL } from '../support/postgres';

// PgBouncer in transaction mode (Debian's package) in front of the machine's
// PostgreSQL with pgvector, as the README configures it. Each statement may run on
// another server connection, so nothing may depend on a session's state.
describe('the service through PgBouncer in transaction mode', () => {
  let available = false;
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let bouncer: Awaited<ReturnType<typeof startPgbouncer>>;
  let t: TestApp;
  let url: string;

  beforeAll(async () => {
    available = hasPgbouncer() && (await hasPgvector());
    if (!available) {
      console.warn(`skipped: no pgvector on ${POSTGRES_URL}, or no ${PGBOUNCER}`);
      return;
    }
    db = await freshDatabase('bouncer');
    const server = new URL(POSTGRES_URL);
    bouncer = await startPgbouncer({ host: server.hostname, port: Number(server.port) });
    url = `postgres://postgres@127.0.0.1:${bouncer.port}/${db.name}`;
    t = await startApp({
      facts: CATANIA,
      env: {
        DATABASE_URL: url,
        FRESHFACTS_DB_POOL_SIZE: '8',
        // PgBouncer 1.18 cannot carry named statements in transaction mode (README).
        FRESHFACTS_DB_PREPARED_STATEMENTS: 'off',
      },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await bouncer?.stop();
    await db?.drop();
  });

  it('refuses settings sent as a startup parameter, as the service no longer does', async () => {
    if (!available) return;
    const client = new Client({ connectionString: url, options: '-c jit=off' });
    await expect(client.connect()).rejects.toThrow(/unsupported startup parameter/);
  });

  it('migrates, ingests and answers searches', async () => {
    if (!available) return;
    const res = await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${t.key}`)
      .send({ query: 'Who coached Calcio Catania?', true_by_max: '2010-01-01' })
      .expect(200);
    expect(res.body.results[0]).toMatchObject({ answer: 'Walter Zenga' });
  });

  it("gives every statement the service's session settings, whichever server connection runs it", async () => {
    if (!available) return;
    const source = t.app.get(DataSource);
    // Overlapping statements (each sleeps a little) need several server connections.
    const seen = await Promise.all(
      Array.from({ length: 24 }, () =>
        source.query<Record<string, string>[]>(
          `SELECT ${Object.keys(SESSION_SETTINGS)
            .map((name, i) => `current_setting('${name}') AS s${i}`)
            .join(', ')}, pg_backend_pid() AS pid, pg_sleep(0.05)::text AS slept`,
        ),
      ),
    );
    expect(new Set(seen.map(([row]) => row.pid)).size).toBeGreaterThan(1);
    for (const [row] of seen) {
      expect(Object.values(SESSION_SETTINGS)).toEqual(
        Object.keys(SESSION_SETTINGS).map((_, i) => row[`s${i}`]),
      );
    }
  });

  it('keeps the free quota exact over concurrent calls', async () => {
    if (!available) return;
    const { key } = await t.app.get(ApiKeysService).create('bounced@example.com');
    const statuses = await fire([t.url], key, 1050, 16);
    expect(count(statuses, 200)).toBe(1000);
    expect(count(statuses, 402)).toBe(50);
  }, 240_000);
});
