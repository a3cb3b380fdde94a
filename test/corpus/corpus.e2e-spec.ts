import request from 'supertest';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { Clock } from '../../src/billing/clock';
import { UsageRepository } from '../../src/billing/usage.repository';
import { CorpusService } from '../../src/corpus/corpus.service';
import { FactsRepository } from '../../src/facts/facts.repository';
import { IngestService } from '../../src/facts/ingest.service';
import { SOURCE_KINDS } from '../../src/sources/sources.repository';
import { SourcesService } from '../../src/sources/sources.service';
import { startApp, TestApp } from '../support/app';
import { CATANIA, fact } from '../support/corpus';
import { UpstreamServer } from '../support/upstream';

// Every kind the service knows, so that a new kind shows up without a source.
const NO_RUNS = [...SOURCE_KINDS]
  .sort()
  .map((kind) => ({ kind, sources: 0, last_success_at: null }));

const HONG_KONG = 'wikidata/entitydata/Q8646_hong-kong.json';

describe('how fresh the store is', () => {
  let upstream: UpstreamServer;
  let t: TestApp;
  let corpus: CorpusService;

  beforeAll(async () => {
    upstream = await new UpstreamServer().start();
    upstream.labels = { Q19217: 'Carrie Lam', Q15023: 'Leung Chun-ying' };
    t = await startApp({
      env: {
        FRESHFACTS_WIKIDATA_API: `${upstream.url}/w/api.php`,
        FRESHFACTS_FETCH_CONTACT: 'ops@freshfacts.test',
      },
    });
    corpus = t.app.get(CorpusService);
  });
  afterAll(async () => {
    await t.close();
    await upstream.stop();
  });

  it('says an empty store is empty and that no source kind has run', async () => {
    expect(await corpus.status()).toEqual({
      facts: 0,
      newest_true_by: null,
      sources: NO_RUNS,
    });
  });

  it('counts every fact, dated or not, and names the newest date', async () => {
    await t.app.get(IngestService).ingestValues([...CATANIA, fact('Who painted it?', 'Leo', null)]);
    expect(await corpus.status()).toMatchObject({ facts: 4, newest_true_by: '2011-01-01' });
  });

  it('counts facts of an ingest whose statistics are not refreshed yet (a dump in progress)', async () => {
    await t.app
      .get(IngestService)
      .ingestValues([fact('Who won it in 2019?', 'Someone', '2019-06-30')], undefined, {
        deferStats: true,
      });
    expect(await corpus.status()).toMatchObject({ facts: 5, newest_true_by: '2019-06-30' });
  });

  it('does not count a fact again when it is ingested again with another source', async () => {
    const again = { ...CATANIA[0], sources: ['https://example.org/another-source'] };
    const summary = await t.app.get(IngestService).ingestValues([again]);
    expect(summary).toMatchObject({ added: 0, merged: 1 });
    expect((await corpus.status()).facts).toBe(5);
  });

  it('gives per kind the last run that did not fail, and none for a kind whose sources all failed', async () => {
    const sources = t.app.get(SourcesService);
    await sources.add(upstream.file(HONG_KONG), 'wikidata', '1d');
    await sources.add(`${upstream.url}/fail/garbage`, 'feed', '1h');
    const before = Date.now();
    const reports = await sources.runDue();
    const after = Date.now();
    expect(reports.map((report) => report.status).sort()).toEqual(['failed', 'ok']);

    const status = await corpus.status();
    const byKind = new Map(status.sources.map((entry) => [entry.kind, entry]));
    const [feed, page, wikidata] = ['feed', 'page', 'wikidata'].map((kind) => byKind.get(kind)!);
    expect(feed).toEqual({ kind: 'feed', sources: 1, last_success_at: null });
    expect(page).toEqual({ kind: 'page', sources: 0, last_success_at: null });
    expect(wikidata).toMatchObject({ kind: 'wikidata', sources: 1 });
    const ran = Date.parse(wikidata.last_success_at ?? '');
    expect(status.sources.map((entry) => entry.kind)).toEqual(NO_RUNS.map((entry) => entry.kind));
    // The database's clock and ours: a second's slack either way.
    expect(ran).toBeGreaterThanOrEqual(before - 1000);
    expect(ran).toBeLessThanOrEqual(after + 1000);
    const added = reports.reduce((sum, report) => sum + report.added, 0);
    expect(added).toBeGreaterThan(0);
    expect(status.facts).toBe(5 + added);
    expect(status.facts).toBe(await t.app.get(FactsRepository).count());
  });

  it('counts an unchanged source (304) as a successful run', async () => {
    const wikidata = async () =>
      (await corpus.status()).sources.find((entry) => entry.kind === 'wikidata')!;
    const first = (await wikidata()).last_success_at ?? '';
    await new Promise((done) => setTimeout(done, 20));
    const reports = await t.app.get(SourcesService).runDue({ all: true });
    expect(reports.find((report) => report.source.kind === 'wikidata')?.status).toBe('not-modified');
    const again = (await wikidata()).last_success_at ?? '';
    expect(Date.parse(again)).toBeGreaterThan(Date.parse(first));
  });
});

describe('GET /v1/corpus', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({
      facts: CATANIA,
      env: {
        FRESHFACTS_PAYMENT_SECRET: 'corpus-test-secret-of-32-bytes-or-more',
        FRESHFACTS_PAYMENT_METHODS: 'test',
      },
    });
    jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date('2026-11-15T12:00:00Z'));
  });
  afterAll(() => t.close());

  const corpus = (key?: string) => {
    const call = request(t.url).get('/v1/corpus');
    return key === undefined ? call : call.set('Authorization', `Bearer ${key}`);
  };

  it('answers a keyed caller what the store holds', async () => {
    const res = await corpus(t.key).expect(200).expect('Content-Type', /json/);
    expect(res.body).toEqual({
      facts: 3,
      newest_true_by: '2011-01-01',
      sources: NO_RUNS,
    });
  });

  it('refuses a call without a key with 401, not a payment challenge, and an unknown key', async () => {
    const missing = await corpus().expect(401).expect('Content-Type', /problem\+json/);
    expect(missing.body).toMatchObject({ type: '/problems/missing-api-key', status: 401 });
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer /);
    const unknown = await corpus('ff_live_not-a-key').expect(401);
    expect(unknown.body).toMatchObject({ type: '/problems/invalid-api-key', status: 401 });
  });

  it('is not counted against the monthly quota', async () => {
    const { key } = await t.app.get(ApiKeysService).create('status@example.com');
    const [account] = await t.app.get(ApiKeysService).list('status@example.com');
    for (let i = 0; i < 3; i++) {
      const res = await corpus(key).expect(200);
      expect(res.headers['ratelimit']).toBeUndefined();
    }
    const usage = t.app.get(UsageRepository);
    expect(await usage.monthCalls(account.accountId, '2026-11-01')).toBe(0);
    const search = await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key}`)
      .send({ query: 'Catania' })
      .expect(200);
    expect(search.headers['ratelimit']).toMatch(/^"monthly";r=999;/);
  });

  it('is answered even when the free calls of the month are used up', async () => {
    const { key } = await t.app.get(ApiKeysService).create('spent@example.com');
    const [account] = await t.app.get(ApiKeysService).list('spent@example.com');
    const usage = t.app.get(UsageRepository);
    await Promise.all(
      Array.from({ length: 1000 }, () =>
        usage.charge(account.accountId, '2026-11-01', '2026-11-15', 1000),
      ),
    );
    await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key}`)
      .send({ query: 'Catania' })
      .expect(402);
    await corpus(key).expect(200);
    expect(await usage.monthCalls(account.accountId, '2026-11-01')).toBe(1000);
  });

  it('is documented in the OpenAPI description with its schema and the bearer key', async () => {
    const { body } = await request(t.url).get('/docs-json').expect(200);
    const get = body.paths['/v1/corpus'].get;
    expect(get.security).toEqual([{ bearer: [] }]);
    expect(get.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/CorpusStatusDto',
    );
    expect(Object.keys(body.components.schemas.CorpusStatusDto.properties)).toEqual([
      'facts',
      'newest_true_by',
      'sources',
    ]);
  });
});
