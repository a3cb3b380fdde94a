import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, serve } from '../support/cli';
import { fact } from '../support/corpus';
import { SparqlEndpoint } from '../support/sparql-endpoint';
import { UpstreamServer } from '../support/upstream';

describe('bin/freshfacts sources and facts show', () => {
  let dir: string;
  let env: Record<string, string>;
  let upstream: UpstreamServer;

  beforeAll(async () => {
    upstream = await new UpstreamServer().start();
    upstream.labels = {
      Q15027: 'Tung Chee-hwa',
      Q15024: 'Donald Tsang',
      Q15023: 'Leung Chun-ying',
      Q19217: 'Carrie Lam',
      Q2097128: 'Pit Clausen',
    };
    dir = mkdtempSync(join(tmpdir(), 'freshfacts-cli-sources-'));
    env = {
      FRESHFACTS_DATA_DIR: join(dir, 'data'),
      DATABASE_URL: '',
      FRESHFACTS_WIKIDATA_API: `${upstream.url}/w/api.php`,
      FRESHFACTS_FETCH_RETRIES: '0',
    };
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await upstream.stop();
  });

  it('refuses bad input with a precise message and stores nothing', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['sources', 'add', 'ftp://example.org/feed', '--kind', 'feed'],
        /a source must be an http\(s\) URL, got "ftp:\/\/example.org\/feed"/,
      ],
      [
        ['sources', 'add', 'https://example.org/feed', '--kind', 'blog'],
        /--kind must be one of feed, page, wikidata, sparql, got "blog"/,
      ],
      [
        ['sources', 'add', 'https://example.org/feed', '--kind', 'feed', '--every', '5s'],
        /--every must be a duration such as 15m, 6h or 1d, from 1m to 30d; got "5s"/,
      ],
      [['sources', 'add', 'https://example.org/feed'], /sources add needs a URL and --kind/],
      [
        ['sources', 'add', '--preset', 'weather'],
        /--preset must be one of wikidata, news, got "weather"/,
      ],
      [
        ['sources', 'add', 'https://example.org/feed', '--preset', 'news'],
        /--preset takes no URL, --kind or --every: its files set them/,
      ],
      [
        ['sources', 'add', join(dir, 'missing.rq'), '--kind', 'sparql'],
        /a sparql source is a query file; cannot read .*missing\.rq/,
      ],
      [['sources', 'remove', '42'], /no source 42/],
      [['facts', 'show', 'abc'], /a fact id is a number, got "abc"/],
    ];
    for (const [args, message] of cases) {
      const { code, err } = await run(args, env).done;
      expect({ args, code }).toEqual({ args, code: 2 });
      expect(err).toMatch(message);
    }
    const { out, err } = await run(['sources', 'list'], env).done;
    expect(out).toBe('');
    expect(err).toMatch(/no sources/);
    // Eleven runs of the command, each opening the embedded database, on a shared machine.
  }, 180_000);

  it('adds, lists, runs and removes sources, and shows where a fact came from', async () => {
    const hongKong = upstream.file('wikidata/entitydata/Q8646_hong-kong.json');
    const feed = upstream.file('feeds/huffpost-canada_2017-10-17.rss.xml');
    const added = await run(
      ['sources', 'add', hongKong, '--kind', 'wikidata', '--every', '6h'],
      env,
    ).done;
    expect(added).toMatchObject({
      code: 0,
      out: `added source 1: wikidata ${hongKong} every 6h\n`,
    });
    await run(['sources', 'add', feed, '--kind', 'feed'], env).done;
    await run(
      ['sources', 'add', `${upstream.url}/fail/500`, '--kind', 'page', '--every', '1d'],
      env,
    ).done;
    const duplicate = await run(['sources', 'add', feed, '--kind', 'feed'], env).done;
    expect(duplicate).toMatchObject({ code: 2, err: expect.stringMatching(/is already a source/) });

    const first = await run(['sources', 'run', '--once'], env).done;
    expect(first.err).toMatch(/no LLM configured \(FRESHFACTS_LLM_URL, FRESHFACTS_LLM_MODEL\)/);
    expect(first.out).toMatch(
      /source 1 wikidata .*: 0 new articles, 0 pending; facts added 17, merged 0, rejected 0/,
    );
    expect(first.out).toMatch(/source 2 feed .*: 2 new articles, 2 pending; facts added 0/);
    expect(first.out).toMatch(/source 3 page .*fail\/500: failed: HTTP 500 \(1 attempt\)/);
    expect(first.out).toMatch(
      /sources: 3 run, 0 not modified, 1 failed; 2 articles wait for extraction\n$/,
    );
    expect(first.code).toBe(1);

    const second = await run(['sources', 'run', '--once', '--all'], env).done;
    expect(second.out).toMatch(/source 1 wikidata .*: not modified/);
    expect(second.out).toMatch(/sources: 3 run, 2 not modified, 1 failed/);

    const listed = await run(['sources', 'list'], env).done;
    expect(listed.out).toMatch(
      new RegExp(
        `1  wikidata  ${hongKong}\\n    every 6h; last not-modified at \\S+; next \\S+\\n    0 articles, 17 facts added, 0 rejected`,
      ),
    );
    expect(listed.out).toMatch(
      /3 {2}page {2}.*fail\/500\n {4}every 1d; last failed at \S+ \(HTTP 500 \(1 attempt\)\); next \S+\n {4}0 articles, 0 facts added, 0 rejected, 2 failures in a row/,
    );

    // The same fact also arrives in a facts file: both origins are kept.
    const file = join(dir, 'facts.jsonl');
    writeFileSync(
      file,
      JSON.stringify(
        fact('Who is the head of government of Hong Kong?', 'Carrie Lam', '2017-07-01'),
      ) + '\n',
    );
    expect((await run(['ingest', file], env).done).out).toMatch(/added 0, merged 1, rejected 0/);

    const found = await run(['facts', 'find', 'head of government of Hong'], env).done;
    const [id, day, question, answer] = found.out.split('\n')[0].split('\t');
    expect([day, question, answer]).toEqual([
      '2017-07-01',
      'Who is the head of government of Hong Kong?',
      'Carrie Lam',
    ]);

    const removed = await run(['sources', 'remove', hongKong], env).done;
    expect(removed.out).toBe(`removed source 1: ${hongKong} (its facts stay)\n`);

    const shown = await run(['facts', 'show', id], env).done;
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(
      new RegExp(
        [
          `^fact ${id}`,
          'question: Who is the head of government of Hong Kong\\?',
          'answer:   Carrie Lam',
          'true_by:  2017-07-01',
          'sources:',
          '  https://www.wikidata.org/wiki/Q8646',
          '  https://example.org/Carrie%20Lam',
          'stored \\S+, last merged \\S+',
          'ingested from:',
          `  wikidata ${hongKong} \\(source 1, removed\\), first \\S+, last \\S+`,
          `  file file://${file}, first \\S+, last \\S+`,
        ].join('\\n'),
      ),
    );
  });

  it('keeps facts current while serving, with the worker inside serve', async () => {
    const data = mkdtempSync(join(tmpdir(), 'freshfacts-cli-worker-'));
    const own = { ...env, FRESHFACTS_DATA_DIR: data, FRESHFACTS_SEED_FILE: '' };
    try {
      const key = (
        await run(['keys', 'create', '--email', 'worker@example.com'], own).done
      ).out.trim();
      const bielefeld = upstream.file('wikidata/entitydata/Q2112_bielefeld.json');
      await run(['sources', 'add', bielefeld, '--kind', 'wikidata'], own).done;
      // The worker is on by default.
      const server = await serve(own);
      const ask = async () => {
        const response = await fetch(`http://127.0.0.1:${server.port}/v1/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'Who is the head of government of Bielefeld?' }),
        });
        const { results } = (await response.json()) as { results: { answer: string }[] };
        return results.find((result) => result.answer === 'Pit Clausen');
      };
      let mayor = await ask();
      for (let wait = 0; !mayor && wait < 100; wait++) {
        await new Promise((done) => setTimeout(done, 200));
        mayor = await ask();
      }
      expect(mayor).toMatchObject({ answer: 'Pit Clausen', true_by: '2009-01-01' });
      const stopped = await server.stop();
      expect(stopped.code === 0 || stopped.signal === 'SIGTERM').toBe(true);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('adds the wikidata and news presets, and serve keeps the store current from them by default', async () => {
    // The SPARQL endpoint is a stand-in made from the captured Wikidata entities.
    const endpoint = await new SparqlEndpoint().start();
    const data = mkdtempSync(join(tmpdir(), 'freshfacts-cli-presets-'));
    const own = {
      ...env,
      FRESHFACTS_DATA_DIR: data,
      FRESHFACTS_SEED_FILE: '',
      FRESHFACTS_SPARQL_URL: endpoint.url,
    };
    try {
      const wikidata = await run(['sources', 'add', '--preset', 'wikidata'], own).done;
      expect(wikidata.code).toBe(0);
      expect(wikidata.out).toContain(
        `added source 7: sparql ${endpoint.url}#heads-of-government every 6h\n`,
      );
      expect(wikidata.out).toMatch(/\npreset wikidata: 10 added, 0 already there\n$/);

      const key = (
        await run(['keys', 'create', '--email', 'presets@example.com'], own).done
      ).out.trim();
      const server = await serve(own);
      const ask = async () => {
        const response = await fetch(`http://127.0.0.1:${server.port}/v1/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'Who is the head of government of the United Kingdom?' }),
        });
        const { results } = (await response.json()) as { results: { answer: string }[] };
        return results.find((result) => result.answer === 'Theresa May');
      };
      let primeMinister = await ask();
      for (let wait = 0; !primeMinister && wait < 100; wait++) {
        await new Promise((done) => setTimeout(done, 200));
        primeMinister = await ask();
      }
      expect(primeMinister).toEqual({
        question: 'Who is the head of government of the United Kingdom?',
        answer: 'Theresa May',
        true_by: '2016-07-13',
        sources: ['https://www.wikidata.org/wiki/Q145'],
      });
      await server.stop();

      // Added with the server stopped: the feeds cannot be reached from here.
      const news = await run(['sources', 'add', '--preset', 'news'], own).done;
      expect(news.out).toContain(
        'added source 11: feed https://feeds.bbci.co.uk/news/world/rss.xml every 30m\n',
      );
      expect(news.out).toMatch(/\npreset news: 19 added, 0 already there\n$/);
      const again = await run(['sources', 'add', '--preset', 'wikidata'], own).done;
      expect(again.out).toContain('already a source: heads-of-state\n');
      expect(again.out).toMatch(/preset wikidata: 0 added, 10 already there\n$/);
    } finally {
      rmSync(data, { recursive: true, force: true });
      await endpoint.stop();
    }
  });

  it('serves without polling when FRESHFACTS_SOURCES_WORKER=off', async () => {
    const data = mkdtempSync(join(tmpdir(), 'freshfacts-cli-no-worker-'));
    const own = { ...env, FRESHFACTS_DATA_DIR: data, FRESHFACTS_SEED_FILE: '' };
    try {
      const bielefeld = `${upstream.file('wikidata/entitydata/Q2112_bielefeld.json')}?off`;
      await run(['sources', 'add', bielefeld, '--kind', 'wikidata'], own).done;
      const server = await serve({ ...own, FRESHFACTS_SOURCES_WORKER: 'off' });
      await new Promise((done) => setTimeout(done, 2000));
      await server.stop();
      const listed = await run(['sources', 'list'], own).done;
      expect(listed.out).toMatch(/never run/);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});
