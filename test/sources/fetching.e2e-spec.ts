import type { Config } from '@jest/types';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IngestService } from '../../src/facts/ingest.service';
import { SourcesRepository } from '../../src/sources/sources.repository';
import { SourcesService } from '../../src/sources/sources.service';
import { startApp, TestApp } from '../support/app';
import { UPSTREAM_DIR, UpstreamServer } from '../support/upstream';

const FEED = 'feeds/huffpost-canada_2017-10-17.rss.xml';
const MAX_BYTES = 256 * 1024;
const REAL_TIMERS: Config.FakeableAPI[] = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
];

describe('fetching upstream sources politely, and failing one source at a time', () => {
  let upstream: UpstreamServer;
  let t: TestApp;
  let sources: SourcesService;

  beforeAll(async () => {
    upstream = await new UpstreamServer().start();
    t = await startApp({
      env: {
        FRESHFACTS_FETCH_TIMEOUT_MS: '400',
        FRESHFACTS_FETCH_RETRIES: '2',
        FRESHFACTS_FETCH_BACKOFF_MS: '20',
        FRESHFACTS_FETCH_MAX_BYTES: String(MAX_BYTES),
      },
    });
    sources = t.app.get(SourcesService);
  });
  afterAll(async () => {
    await t.close();
    await upstream.stop();
  });
  beforeEach(async () => {
    for (const source of await sources.list()) await sources.remove(source.id);
  });

  async function runOnly(urls: string[], kind = 'feed') {
    for (const url of urls) await sources.add(url, kind, '1h');
    const reports = await sources.runDue();
    return new Map(reports.map((report) => [report.source.url, report]));
  }

  it('records each broken source with its error and still runs the healthy one', async () => {
    const broken = {
      [`${upstream.url}/fail/500`]: /^HTTP 500 \(3 attempts\)$/,
      [`${upstream.url}/fail/slow`]: /^timed out after 400 ms \(3 attempts\)$/,
      [`${upstream.url}/fail/garbage`]: /^not an RSS or Atom feed \(.+\)$/,
      [`${upstream.url}/fail/huge`]: new RegExp(`^larger than the ${MAX_BYTES}-byte limit$`),
      [`${upstream.url}/upstream/feeds/no-such-feed.xml`]: /^HTTP 404$/,
    };
    const healthy = upstream.file(FEED);
    const reports = await runOnly([...Object.keys(broken), healthy]);
    for (const [url, error] of Object.entries(broken)) {
      expect(reports.get(url)).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(error),
      });
    }
    expect(reports.get(healthy)).toMatchObject({ status: 'ok', newDocuments: 2 });
    expect(upstream.requests('/fail/500')).toHaveLength(3);
    // The huge body was abandoned once the cap was passed, not read to its end.
    const listed = await sources.list();
    const failing = listed.filter((source) => source.last_status === 'failed');
    expect(failing).toHaveLength(5);
    for (const source of failing) {
      expect(source.failures).toBe(1);
      // Retried in a minute at first, not at the hourly schedule, and not at once.
      const wait = source.next_run_at.getTime() - (source.last_run_at?.getTime() ?? 0);
      expect(wait).toBeGreaterThanOrEqual(59_000);
      expect(wait).toBeLessThanOrEqual(61_000);
    }
  });

  it("backs off further after each failure, up to the source's own interval", async () => {
    const url = `${upstream.url}/fail/500`;
    await sources.add(url, 'feed', '1h');
    const waits: number[] = [];
    for (let run = 0; run < 8; run++) {
      await sources.runDue({ all: true });
      const [source] = await sources.list();
      waits.push(Math.round((source.next_run_at.getTime() - source.last_run_at!.getTime()) / 1000));
    }
    expect(waits).toEqual([60, 120, 240, 480, 960, 1920, 3600, 3600]);
  });

  it('retries a transient failure within the run', async () => {
    const url = `${upstream.url}/fail/flaky?then=${FEED}`;
    const reports = await runOnly([url]);
    expect(reports.get(url)).toMatchObject({ status: 'ok', newDocuments: 2 });
  });

  it('sends a user agent naming the service, asks robots.txt once, and obeys it', async () => {
    upstream.seen.length = 0;
    const allowed = upstream.file(FEED);
    const disallowed = `${upstream.url}/private/feed.xml`;
    const reports = await runOnly([allowed, disallowed]);
    expect(reports.get(disallowed)).toMatchObject({
      status: 'failed',
      error: 'disallowed by robots.txt',
    });
    expect(upstream.requests('/private/feed.xml')).toHaveLength(0);
    expect(upstream.requests('/robots.txt').length).toBeLessThanOrEqual(1);
    for (const seen of upstream.seen) {
      expect(seen.headers['user-agent']).toMatch(
        /^freshfacts\/\d+\.\d+\.\d+ \(\+http:\/\/127\.0\.0\.1:8080\)$/,
      );
    }
  });

  it('asks again conditionally and adds nothing when the feed is unchanged (304)', async () => {
    const url = upstream.file(FEED);
    await runOnly([url]);
    const again = await sources.runDue({ all: true });
    expect(again).toMatchObject([{ status: 'not-modified', newDocuments: 0, added: 0 }]);
    const last = upstream.requests(`/upstream/${FEED}`).at(-1);
    expect(last?.status).toBe(304);
    expect(last?.headers['if-none-match']).toMatch(/^"[0-9a-f]{40}"$/);
  });

  it('stores only the new items of a feed that changed', async () => {
    const url = upstream.file(FEED);
    await runOnly([url]);
    const original = readFileSync(join(UPSTREAM_DIR, FEED), 'utf8');
    const extra = original.replace(
      '<item>',
      `<item><title>Toronto names new transit chief</title><link>http://www.huffingtonpost.ca/2017/10/18/toronto-transit/</link><pubDate>Wed, 18 Oct 2017 09:00:00 +0000</pubDate><description>Toronto named a new transit chief on Wednesday.</description></item><item>`,
    );
    upstream.overrides.set(FEED, Buffer.from(extra));
    try {
      const [report] = await sources.runDue({ all: true });
      expect(report).toMatchObject({ status: 'ok', newDocuments: 1 });
    } finally {
      upstream.overrides.delete(FEED);
    }
  });

  // Over the wire the test's database is PGlite in this very process, on the faked clock
  // too, so the story needs the in-process run, whose database has a thread of its own.
  const databaseOnItsOwnThread = process.env.FRESHFACTS_TEST_DB !== 'wire';
  (databaseOnItsOwnThread ? it : it.skip)(
    'runs every source on the database clock, whatever the process clock says',
    async () => {
      // A run of every source runs those last run before it started. That "before" was
      // once read on this process's clock to the millisecond, while run times are the
      // database's to the microsecond: a source finished in the same millisecond (the
      // test above, now and then) or on a server whose clock is ahead was skipped.
      // Only Date is faked here, five seconds behind; timers and I/O run for real.
      const url = upstream.file(FEED);
      await runOnly([url]);
      jest.useFakeTimers({ now: Date.now() - 5000, doNotFake: REAL_TIMERS });
      try {
        const reports = await sources.runDue({ all: true });
        expect(reports.map((report) => report.source.url)).toEqual([url]);
      } finally {
        jest.useRealTimers();
      }
    },
  );

  it('lets several workers run at once, each source fetched by exactly one', async () => {
    const urls = Array.from({ length: 12 }, (_, i) => `${upstream.file(FEED)}?copy=${i}`);
    for (const url of urls) await sources.add(url, 'feed', '1h');
    upstream.seen.length = 0;
    const repository = t.app.get(SourcesRepository);
    const workers = [0, 1, 2, 3].map(
      () => new SourcesService(repository, t.app.get(IngestService), t.config),
    );
    const runs = await Promise.all(workers.map((worker) => worker.runDue()));
    expect(runs.flat()).toHaveLength(12);
    expect(upstream.requests(`/upstream/${FEED}`)).toHaveLength(12);
    expect(await repository.claim('late', 60)).toBeUndefined();
  });
});
