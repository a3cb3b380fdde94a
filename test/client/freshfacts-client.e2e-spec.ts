import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  FreshfactsClient,
  FreshfactsError,
  payingFetch,
  retryAfterMs,
  testPayer,
} from '../../src/client';
import { startApp, TestApp } from '../support/app';
import { CATANIA, OTHER } from '../support/corpus';

const QUESTION = 'Who is the head coach of Calcio Catania?';

async function caught(promise: Promise<unknown>): Promise<FreshfactsError> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(FreshfactsError);
  return error as FreshfactsError;
}

describe('FreshfactsClient against the service', () => {
  let t: TestApp;
  let client: FreshfactsClient;
  beforeAll(async () => {
    t = await startApp({
      facts: [...CATANIA, ...OTHER],
      env: {
        FRESHFACTS_PAYMENT_SECRET: 'client-test-secret-of-at-least-32-bytes!',
        FRESHFACTS_PAYMENT_METHODS: 'test',
      },
    });
    client = new FreshfactsClient({ baseUrl: `${t.url}/`, apiKey: t.key });
  });
  afterAll(() => t.close());

  it('searches and researches with typed answers and the call’s cutoff and remaining calls', async () => {
    const found = await client.search({ query: QUESTION, model_id: 'openai/gpt-4o', k: 10 });
    expect(found.modelCutoff).toBe('2023-10-01');
    expect(found.remaining).toBe(999);
    const all = await client.search({ query: QUESTION, true_by_max: '2009-12-31' });
    expect(all.results.map((fact) => fact.answer)).toEqual(['Walter Zenga', 'Silvio Baldini']);
    expect(all.modelCutoff).toBeUndefined();
    const research = await client.research({ query: QUESTION, timeline: false });
    expect(research.research_guidance).toHaveLength(3);
  });

  it('throws the service’s problem: invalid fields, an unknown key', async () => {
    const invalid = await caught(client.search({ query: '', k: 2.5 }));
    expect(invalid.status).toBe(422);
    expect(invalid.problem.type).toBe('/problems/invalid-request');
    expect(invalid.problem.errors?.map((error) => error.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'query'],
        ['body', 'k'],
      ]),
    );
    const stranger = new FreshfactsClient({ baseUrl: t.url, apiKey: 'ff_live_nobody' });
    const refused = await caught(stranger.research({ query: QUESTION }));
    expect(refused.problem).toMatchObject({ type: '/problems/invalid-api-key', status: 401 });
    expect(refused.message).toBe('Invalid API key: The API key is unknown or revoked.');
  });

  it('pays per call without a key through payingFetch', async () => {
    const paying = new FreshfactsClient({
      baseUrl: t.url,
      fetch: await payingFetch([testPayer()]),
    });
    const { results } = await paying.search({ query: QUESTION });
    expect(results[0].answer).toBe('Vincenzo Montella');
    const unpaid = await caught(
      new FreshfactsClient({ baseUrl: t.url }).search({ query: QUESTION }),
    );
    expect(unpaid.status).toBe(402);
    expect(unpaid.headers.get('www-authenticate')).toMatch(/^Payment /);
  });
});

describe('FreshfactsClient on a 503', () => {
  // A stand-in service on loopback that answers 503 a set number of times.
  let server: Server;
  let url: string;
  let failures: { status: number; headers: Record<string, string> }[];
  let arrivals: number[];
  beforeAll(async () => {
    server = createServer((req, res) => {
      arrivals.push(Date.now());
      const failure = failures.shift();
      if (failure) {
        res.writeHead(failure.status, {
          'content-type': 'application/problem+json',
          ...failure.headers,
        });
        res.end(
          JSON.stringify({
            type: '/problems/embedder-unavailable',
            title: 'Embedder unavailable',
            status: failure.status,
            detail: 'try later',
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ results: [CATANIA[0]] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    arrivals = [];
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('retries after the Retry-After the service names', async () => {
    failures = [{ status: 503, headers: { 'Retry-After': '1' } }];
    const { results } = await new FreshfactsClient({ baseUrl: url, backoffMs: 1 }).search({
      query: QUESTION,
    });
    expect(results).toEqual([CATANIA[0]]);
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(950);
  });

  it('backs off without Retry-After, and gives up after its retries with the problem', async () => {
    failures = [503, 503, 503].map((status) => ({ status, headers: {} }));
    const error = await caught(
      new FreshfactsClient({ baseUrl: url, retries: 2, backoffMs: 100 }).search({ query: 'q' }),
    );
    expect(error.problem.type).toBe('/problems/embedder-unavailable');
    expect(arrivals).toHaveLength(3);
    expect(arrivals[2] - arrivals[1]).toBeGreaterThanOrEqual(190);
  });

  it('neither waits out a Retry-After over its limit nor retries other errors', async () => {
    failures = [{ status: 503, headers: { 'Retry-After': '3600' } }];
    await caught(new FreshfactsClient({ baseUrl: url }).search({ query: 'q' }));
    failures = [{ status: 500, headers: {} }];
    await caught(new FreshfactsClient({ baseUrl: url }).search({ query: 'q' }));
    expect(arrivals).toHaveLength(2);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    expect(retryAfterMs('7', now)).toBe(7000);
    expect(retryAfterMs('Wed, 25 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});
