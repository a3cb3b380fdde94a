import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createApp } from '../../src/app';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { loadConfig } from '../../src/config/config';
import { SESSION_SETTINGS } from '../../src/database/data-source';
import { IngestService } from '../../src/facts/ingest.service';
import { CATANIA } from '../support/corpus';

// The service on a database server that goes away for a few seconds and comes back:
// PGlite served over the PostgreSQL wire protocol, reached through DATABASE_URL, and
// stopped and started on the same port as a restarted server would be.
describe('a replica whose database goes away and comes back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'freshfacts-outage-'));
  let db: PGlite;
  let server: PGLiteSocketServer | undefined;
  let port = 0;
  let app: INestApplication;
  let url: string;
  let key: string;

  const startServer = async () => {
    server = new PGLiteSocketServer({ db, port, host: '127.0.0.1', maxConnections: 4 });
    await server.start();
    port = Number(server.getServerConn().split(':').at(-1));
  };

  beforeAll(async () => {
    db = await PGlite.create(join(dir, 'server'), { extensions: { vector } });
    for (const [name, value] of Object.entries(SESSION_SETTINGS)) {
      await db.query(`SELECT set_config($1, $2, false)`, [name, value]);
    }
    await startServer();
    const config = loadConfig({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`,
      FRESHFACTS_DB_POOL_SIZE: '1', // see test/support/app.ts
      FRESHFACTS_DATA_DIR: dir,
      FRESHFACTS_SEED_FILE: '',
      FRESHFACTS_LOG_LEVEL: 'error',
    });
    app = await createApp(config);
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
    await app.get(IngestService).ingestValues(CATANIA);
    ({ key } = await app.get(ApiKeysService).create('outage@example.com'));
  });
  afterAll(async () => {
    await app?.close();
    await server?.stop();
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const search = () =>
    request(url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key}`)
      .send({ query: 'Catania' });

  it('answers 503 with a problem body while the database is down, and recovers by itself', async () => {
    await search().expect(200);
    await request(url).get('/readyz').expect(200);

    await server!.stop();
    server = undefined;
    const down = await search().expect(503);
    expect(down.headers['retry-after']).toBe('5');
    expect(down.body).toMatchObject({ type: '/problems/database-unavailable', status: 503 });
    const unready = await request(url).get('/readyz').expect(503);
    expect(unready.body.checks.database).toMatch(/^unreachable/);
    await request(url).get('/healthz').expect(200); // alive: do not restart it, wait

    await new Promise((resolve) => setTimeout(resolve, 2000));
    await startServer();
    await search().expect(200);
    await request(url).get('/readyz').expect(200);
  }, 60_000);
});
