import request from 'supertest';
import { UsageRepository } from '../../src/billing/usage.repository';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { SearchService } from '../../src/search/search.service';
import { startApp, TestApp } from '../support/app';
import { CATANIA } from '../support/corpus';
import { payingFetch, testPayer } from '../../src/client';

const QUESTION = { query: 'Who coached Calcio Catania?' };

const READY = {
  status: 'ready',
  checks: { database: 'ok', migrations: 'ok', embedder: 'ok' },
};

describe('operating a replica', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({
      facts: CATANIA,
      env: {
        FRESHFACTS_PAYMENT_SECRET: 'operations-test-secret-of-32-bytes-or-more',
        FRESHFACTS_PAYMENT_METHODS: 'test',
      },
    });
  });
  afterAll(() => t?.close());

  it('is ready at once with the default encoder, whose table loads with the store', async () => {
    const fresh = await startApp();
    try {
      await request(fresh.url).get('/readyz').expect(200, READY);
    } finally {
      await fresh.close();
    }
  });

  it('is alive at once, and ready only once the full encoder is loaded', async () => {
    // no facts ingested: nothing has loaded the encoder yet
    const fresh = await startApp({ env: { FRESHFACTS_EMBEDDER: 'use-lite' } });
    try {
      await request(fresh.url).get('/healthz').expect(200, { status: 'ok' });
      const loading = await request(fresh.url).get('/readyz').expect(503);
      expect(loading.body).toEqual({
        status: 'unready',
        checks: { database: 'ok', migrations: 'ok', embedder: 'loading' },
      });
      await request(fresh.url)
        .post('/v1/search')
        .set('Authorization', `Bearer ${fresh.key}`)
        .send(QUESTION)
        .expect(200);
      await request(fresh.url).get('/readyz').expect(200, READY);
    } finally {
      await fresh.close();
    }
  });

  it('gives every response a request id, keeping a sane one the caller sent', async () => {
    const mine = await request(t.url)
      .get('/healthz')
      .set('X-Request-Id', 'agent-42.call-7')
      .expect(200);
    expect(mine.headers['x-request-id']).toBe('agent-42.call-7');
    const hostile = await request(t.url)
      .get('/healthz')
      .set('X-Request-Id', 'x'.repeat(200))
      .expect(200);
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('exports Prometheus metrics: latency by route and status, searches, refusals, payments, the encoder', async () => {
    const before = await scrape();
    const { key } = await t.app.get(ApiKeysService).create('spent@example.com');
    const [account] = await t.app.get(ApiKeysService).list('spent@example.com');
    const month = new Date().toISOString().slice(0, 7) + '-01';
    const today = new Date().toISOString().slice(0, 10);
    for (let i = 0; i < 1000; i++) {
      await t.app.get(UsageRepository).charge(account.accountId, month, today, 1000);
    }
    await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key}`)
      .send(QUESTION)
      .expect(402);
    await request(t.url).post('/v1/search').send(QUESTION).expect(402); // a payment challenge
    const paid = await (
      await payingFetch([testPayer()])
    )(`${t.url}/v1/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(QUESTION),
    });
    expect(paid.status).toBe(200);

    const after = await scrape();
    const delta = (name: string) => (value(after, name) ?? 0) - (value(before, name) ?? 0);
    expect(delta('freshfacts_quota_refusals_total')).toBe(1);
    expect(delta('freshfacts_payments_total{outcome="payment-required"}')).toBe(2); // ours and the client's first try
    expect(delta('freshfacts_payments_total{outcome="settled"}')).toBe(1);
    expect(delta('freshfacts_searches_total')).toBe(1);
    expect(
      delta(
        'freshfacts_http_request_duration_seconds_count{method="POST",route="/v1/search",status="200"}',
      ),
    ).toBe(1);
    expect(
      delta(
        'freshfacts_http_request_duration_seconds_count{method="POST",route="/v1/search",status="402"}',
      ),
    ).toBe(3);
    expect(
      value(
        after,
        'freshfacts_http_request_duration_seconds_count{method="POST",route="/v1/search",status="200"}',
      ),
    ).toBe(1);
    expect(value(after, 'freshfacts_embedder_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(value(after, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('finishes the calls in flight when it shuts down, and takes no new ones', async () => {
    const local = await startApp({ facts: CATANIA });
    const search = local.app.get(SearchService);
    const find = search.find.bind(search);
    jest.spyOn(search, 'find').mockImplementation(async (query) => {
      await new Promise((resolve) => setTimeout(resolve, 700));
      return find(query);
    });
    const inFlight = fetch(`${local.url}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${local.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(QUESTION),
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const closing = local.close();
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as { results: unknown[] }).results.length).toBeGreaterThan(0);
    await closing;
    await expect(fetch(`${local.url}/healthz`)).rejects.toThrow();
  });

  async function scrape(): Promise<string> {
    const res = await request(t.url).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    return res.text;
  }
});

/** The value of one sample line of the exposition text, by its name and labels. */
function value(text: string, sample: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
}
