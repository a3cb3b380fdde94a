import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { ReadReplicas } from '../../src/database/read-replicas';
import { IngestService } from '../../src/facts/ingest.service';
import { SearchService } from '../../src/search/search.service';
import { startApp, TestApp } from '../support/app';
import { CATANIA } from '../support/corpus';
import { count, fire } from '../support/load';
import { hasPgPrograms, PG_BIN, startStreamingPair, StreamingPair } from '../support/pg-cluster';
import { hasPgvector } from '../support/postgres';

/**
 * The service with DATABASE_REPLICA_URLS: a PostgreSQL 15 primary and a streaming
 * replica made from it by `pg_basebackup -R`, both real servers on loopback (the
 * machine's programs and pgvector). Searches go to the replica; keys, quota and ingest
 * to the primary.
 */
describe('searches served by a streaming replica', () => {
  let available = false;
  let pair: StreamingPair;
  let t: TestApp;
  const replicas = () => t.app.get(ReadReplicas);
  const served = () => replicas().status()[0].served;
  const search = (query: string, key = t.key) =>
    request(t.url).post('/v1/search').set('Authorization', `Bearer ${key}`).send({ query });

  beforeAll(async () => {
    available = hasPgPrograms() && (await hasPgvector());
    if (!available) {
      console.warn(`skipped: no pgvector, or no PostgreSQL 15 programs in ${PG_BIN}`);
      return;
    }
    pair = await startStreamingPair();
    t = await startApp({
      facts: CATANIA,
      env: {
        DATABASE_URL: pair.primaryUrl('postgres'),
        DATABASE_REPLICA_URLS: pair.replicaUrl('postgres'),
        FRESHFACTS_REPLICA_MAX_LAG_MS: '1000',
        FRESHFACTS_DB_POOL_SIZE: '8',
      },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    pair?.stop();
  });

  it('finds through the replica a fact just ingested on the primary', async () => {
    if (!available) return;
    await until(() => replicas().status()[0].usable);
    const before = served();
    await t.app.get(IngestService).ingestValues([
      {
        question: 'Who is the head coach of the Ruritanian national curling team?',
        answer: 'Agnes Velvet',
        true_by: '2026-11-01',
        sources: ['https://example.org/curling'],
      },
    ]);
    // Replication is asynchronous: the fact arrives within moments.
    let answer = '';
    await until(async () => {
      const res = await search('Ruritanian curling coach').expect(200);
      answer = (res.body as { results: { answer: string }[] }).results[0].answer;
      return answer === 'Agnes Velvet';
    });
    expect(answer).toBe('Agnes Velvet');
    expect(served()).toBeGreaterThan(before);
  });

  it('warms every connection of the replica, as serve does before it listens', async () => {
    if (!available) return;
    await until(() => replicas().status()[0].usable);
    await t.app.get(SearchService).warm();
    const rows = pair
      .onReplica(
        `SELECT query LIKE '%WITH terms AS%' FROM pg_stat_activity
         WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      )
      .trim()
      .split('\n');
    // The pool's eight, all opened; the lag check, every half second, may have run on
    // one of them since.
    expect(rows).toHaveLength(8);
    expect(rows.filter((row) => row.trim() === 't').length).toBeGreaterThanOrEqual(7);
  });

  it('skips a replica further behind than the bound; the primary answers', async () => {
    if (!available) return;
    pair.onReplica('SELECT pg_wal_replay_pause()');
    try {
      await t.app.get(IngestService).ingestValues([
        {
          question: 'Who chairs the Ruritanian curling federation?',
          answer: 'Boris Granite',
          true_by: '2026-11-02',
          sources: ['https://example.org/federation'],
        },
      ]);
      await until(() => !replicas().status()[0].usable);
      expect(replicas().status()[0].lagMs).toBeGreaterThan(1000);
      const before = served();
      const res = await search('Who chairs the Ruritanian curling federation?').expect(200);
      expect(res.body.results[0]).toMatchObject({ answer: 'Boris Granite' });
      expect(served()).toBe(before);
    } finally {
      pair.onReplica('SELECT pg_wal_replay_resume()');
    }
    await until(() => replicas().status()[0].usable);
  });

  it('fails no search when the replica stops mid-load, and the quota stays exact', async () => {
    if (!available) return;
    const { key } = await t.app.get(ApiKeysService).create('replicated@example.com');
    const before = served();
    const load = fire([t.url], key, 1100, 16);
    await until(() => served() >= before + 200);
    pair.stopReplica();
    const statuses = await load;
    expect(count(statuses, 200)).toBe(1000);
    expect(count(statuses, 402)).toBe(100);
    expect(replicas().status()[0].usable).toBe(false);
    const [{ calls }] = await t.app.get(DataSource).query<{ calls: number }[]>(
      `SELECT u.calls FROM usage_months u JOIN accounts a ON a.id = u.account_id
         WHERE a.email = 'replicated@example.com'`,
    );
    expect(calls).toBe(1000);
    // The primary answers alone now.
    await search('Who coached Calcio Catania?', t.key).expect(200);
  }, 240_000);
});

async function until(test: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  for (const deadline = Date.now() + ms; Date.now() < deadline;) {
    if (await test()) return;
    await new Promise((done) => setTimeout(done, 20));
  }
  throw new Error(`not so after ${ms} ms`);
}
