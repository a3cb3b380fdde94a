import { MIGRATIONS } from '../../migrations';
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
import { fire } from '../support/load';
import { serverDatabase, startSharedWireServer } from '../support/wire-server';

const ADMIN_TOKEN = 'replicas-test-admin-token-0123456789';
const PAYMENT_SECRET = 'replicas-test-payment-secret-0123456789';

/**
 * Two replicas of the API, separate Nest applications with their own connection
 * pools, on one database reached through DATABASE_URL: PGlite behind the
 * PostgreSQL wire protocol (this machine's PostgreSQL 15 has no pgvector). Nothing
 * but the database is shared between them.
 */
describe('two replicas on one database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'freshfacts-replicas-'));
  let db: PGlite;
  let server: Awaited<ReturnType<typeof startSharedWireServer>>;
  const replicas: { app: INestApplication; url: string }[] = [];

  beforeAll(async () => {
    db = await serverDatabase(dir);
    server = await startSharedWireServer(db);
    // Both start at once, as replicas do: migrations run once, under the advisory lock.
    replicas.push(
      ...(await Promise.all(
        ['a', 'b'].map((name) =>
          startReplica(server.port, join(dir, name), {
            FRESHFACTS_DB_POOL_SIZE: '4',
            FRESHFACTS_ADMIN_TOKEN: ADMIN_TOKEN,
            FRESHFACTS_PAYMENT_SECRET: PAYMENT_SECRET,
            FRESHFACTS_PAYMENT_METHODS: 'test',
          }),
        ),
      )),
    );
    await replicas[0].app.get(IngestService).ingestValues(CATANIA);
  }, 120_000);
  afterAll(async () => {
    for (const { app } of replicas) await app.close();
    await server?.stop();
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const [a, b] = [0, 1].map((i) => () => replicas[i]);

  it('ran the migrations once', async () => {
    const rows = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM migrations`);
    expect(rows.rows[0].n).toBe(MIGRATIONS.length);
  });

  it('keeps the free quota exact over 1,100 concurrent calls spread over both', async () => {
    const { key } = await a().app.get(ApiKeysService).create('replicated@example.com');
    const statuses = await fire(
      replicas.map((replica) => replica.url),
      key,
      1100,
      16,
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1000);
    expect(statuses.filter((s) => s === 402)).toHaveLength(100);
    const usage = await request(b().url)
      .get('/admin/accounts/replicated@example.com/usage')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .expect(200);
    expect(usage.body.calls).toBe(1000);
  }, 300_000);

  it('refuses on one replica at once a key revoked through the other', async () => {
    const { key } = await a().app.get(ApiKeysService).create('revoked@example.com');
    const search = (url: string) =>
      request(url)
        .post('/v1/search')
        .set('Authorization', `Bearer ${key}`)
        .send({ query: 'Catania' });
    await search(b().url).expect(200);
    const [{ id }] = await a().app.get(ApiKeysService).list('revoked@example.com');
    await request(a().url)
      .delete(`/admin/keys/${id}`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .expect(200);
    await search(b().url).expect(401);
  });

  it('finds through one replica a fact ingested through the other', async () => {
    const { key } = await b().app.get(ApiKeysService).create('reader@example.com');
    const fact = {
      question: 'Who is the head coach of the Ruritanian national curling team?',
      answer: 'Agnes Velvet',
      true_by: '2026-11-01',
      sources: ['https://example.org/curling'],
    };
    await a().app.get(IngestService).ingestValues([fact]);
    const res = await request(b().url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key}`)
      .send({ query: 'Ruritanian curling coach' })
      .expect(200);
    expect(res.body.results[0]).toMatchObject({ answer: 'Agnes Velvet' });
  });

  it('settles one payment credential once across both', async () => {
    const body = JSON.stringify({ query: 'Who coached Calcio Catania?' });
    const challenge = await fetch(`${a().url}/v1/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const header = challenge.headers.get('www-authenticate')!;
    const params = Object.fromEntries(
      [...header.matchAll(/([a-z]+)="([^"]*)"/g)].map(([, k, v]) => [k, v]),
    );
    const credential = `Payment ${Buffer.from(
      JSON.stringify({ challenge: params, payload: { amount: '1', currency: 'usd' } }),
    ).toString('base64url')}`;
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(`${replicas[i % 2].url}/v1/search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'payment-authorization': credential },
          body,
        }).then(async (res) => (await res.arrayBuffer(), res.status)),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(19);
  });
});
