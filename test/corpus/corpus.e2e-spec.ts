import { CorpusService } from '../../src/corpus/corpus.service';
import { IngestService } from '../../src/facts/ingest.service';
import { SourcesService } from '../../src/sources/sources.service';
import { startApp, TestApp } from '../support/app';
import { CATANIA, fact } from '../support/corpus';
import { UpstreamServer } from '../support/upstream';

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
      sources: [
        { kind: 'feed', sources: 0, last_success_at: null },
        { kind: 'page', sources: 0, last_success_at: null },
        { kind: 'wikidata', sources: 0, last_success_at: null },
      ],
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

  it('gives per kind the last run that did not fail, and none for a kind whose sources all failed', async () => {
    const sources = t.app.get(SourcesService);
    await sources.add(upstream.file(HONG_KONG), 'wikidata', '1d');
    await sources.add(`${upstream.url}/fail/garbage`, 'feed', '1h');
    const before = Date.now();
    const reports = await sources.runDue();
    const after = Date.now();
    expect(reports.map((report) => report.status).sort()).toEqual(['failed', 'ok']);

    const status = await corpus.status();
    const [feed, page, wikidata] = status.sources;
    expect(feed).toEqual({ kind: 'feed', sources: 1, last_success_at: null });
    expect(page).toEqual({ kind: 'page', sources: 0, last_success_at: null });
    expect(wikidata).toMatchObject({ kind: 'wikidata', sources: 1 });
    const ran = Date.parse(wikidata.last_success_at ?? '');
    // The database's clock and ours: a second's slack either way.
    expect(ran).toBeGreaterThanOrEqual(before - 1000);
    expect(ran).toBeLessThanOrEqual(after + 1000);
    const added = reports.reduce((sum, report) => sum + report.added, 0);
    expect(added).toBeGreaterThan(0);
    expect(status.facts).toBe(5 + added);
  });

  it('counts an unchanged source (304) as a successful run', async () => {
    const first = (await corpus.status()).sources[2].last_success_at ?? '';
    await new Promise((done) => setTimeout(done, 20));
    const reports = await t.app.get(SourcesService).runDue({ all: true });
    expect(reports.find((report) => report.source.kind === 'wikidata')?.status).toBe('not-modified');
    const again = (await corpus.status()).sources[2].last_success_at ?? '';
    expect(Date.parse(again)).toBeGreaterThan(Date.parse(first));
  });
});
