import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { IngestService } from '../../src/facts/ingest.service';
import { startReplica } from '../support/app';
import { CATANIA } from '../support/corpus';
import { serverDatabase, startSharedWireServer } from '../support/wire-server';

// The service on a database server that goes away for a few seconds and comes back:
// PGlite served over the PostgreSQL wire protocol, reached through DATABASE_URL, and
// stopped and started on the same port as a restarted server would be.
describe('two replicas whose database goes away and comes back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'freshfacts-outage-'));
  let db: PGlite;
  let server: Awaited<ReturnType<typeof startSharedWireServer>> | undefined;
  let port = 0;
  const apps: INestApplication[] = [];
  const urls: string[] = [];
  let key: string;

  const startServer = async () => {
    server = await startSharedWireServer(db, port);
    port = server.port;
  };

  beforeAll(async () => {
    db = await serverDatabase(dir);
    await startServer();
    for (const name of ['a', 'b']) {
      const replica = await startReplica(port, join(dir, name), { FRESHFACTS_DB_POOL_SIZE: '2' });
      apps.push(replica.app);
      urls.push(replica.url);
    }
    await apps[0].get(IngestService).ingestValues(CATANIA);
    ({ key } = await apps[0].get(ApiKeysService).create('outage@example.com'));
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await server?.stop();
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const search = (url: string) =>
    request(url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key}`)
      .send({ query: 'Catania' });

  it('answer 503 with a problem body while the database is down, and recover by themselves', async () => {
    for (const url of urls) {
      await search(url).expect(200);
      await request(url).get('/readyz').expect(200);
    }

    await server!.stop();
    server = undefined;
    for (const url of urls) {
      const down = await search(url).expect(503);
      expect(down.headers['retry-after']).toBe('5');
      expect(down.body).toMatchObject({ type: '/problems/database-unavailable', status: 503 });
      const unready = await request(url).get('/readyz').expect(503);
      expect(unready.body.checks.database).toMatch(/^unreachable/);
      await request(url).get('/healthz').expect(200); // alive: do not restart it, wait
    }

    await new Promise((resolve) => setTimeout(resolve, 2000));
    await startServer();
    for (const url of urls) {
      await search(url).expect(200);
      await request(url).get('/readyz').expect(200);
    }
    // Calls refused during the outage were not counted.
    const usage = await db.query<{ calls: number }>(
      `SELECT sum(calls)::int AS calls FROM usage_months`,
    );
    expect(usage.rows[0].calls).toBe(4);
  }, 60_000);
});
