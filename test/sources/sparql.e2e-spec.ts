import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { FactsRepository } from '../../src/facts/facts.repository';
import { PRESETS_DIR } from '../../src/sources/presets';
import { Source } from '../../src/sources/sources.repository';
import { SourcesService } from '../../src/sources/sources.service';
import { startApp, TestApp } from '../support/app';
import { Misbehaviour, Row, SparqlEndpoint } from '../support/sparql-endpoint';

// No network here: the SPARQL endpoint is a stand-in on a loopback port whose results
// are made from the real captured Wikidata entities in test/fixtures/upstream/wikidata
// (real labels, real statement dates and ranks); see test/support/sparql-endpoint.ts.

const PRESETS = readdirSync(join(PRESETS_DIR, 'wikidata'))
  .filter((file) => file.endsWith('.rq'))
  .map((file) => file.replace(/\.rq$/, ''))
  .sort();

/** A query of the fact variables that the stand-in answers through `custom`. */
const CUSTOM_QUERY = `# A test's own query.
SELECT ?question ?answer ?true_by ?source WHERE { ?s ?p ?o }`;

type Fact = { question: string; answer: string; true_by: string | null; sources: string[] };

const literal = (value: string, datatype?: string) => ({ type: 'literal', value, datatype });
const uri = (value: string) => ({ type: 'uri', value });

/** A well-formed fact row about `subject`. */
function factRow(subject: string, source = `https://www.wikidata.org/wiki/${subject}`): Row {
  return {
    question: literal(`Who leads the test body ${subject}?`),
    answer: literal(`Leader of ${subject}`),
    true_by: literal('2026-03-01T00:00:00Z', 'http://www.w3.org/2001/XMLSchema#dateTime'),
    source: uri(source),
  };
}

describe('facts from SPARQL queries: the wikidata preset against a stand-in endpoint', () => {
  let endpoint: SparqlEndpoint;
  let t: TestApp;
  let sources: SourcesService;
  let facts: FactsRepository;

  beforeAll(async () => {
    endpoint = await new SparqlEndpoint().start();
    t = await startApp({
      env: {
        FRESHFACTS_SPARQL_URL: endpoint.url,
        FRESHFACTS_FETCH_CONTACT: 'ops@freshfacts.test',
        FRESHFACTS_SPARQL_TIMEOUT_MS: '3000',
        FRESHFACTS_SPARQL_MAX_BYTES: String(256 * 1024),
      },
    });
    sources = t.app.get(SourcesService);
    facts = t.app.get(FactsRepository);
  });
  afterAll(async () => {
    await t.close();
    await endpoint.stop();
  });

  const search = (query: string, extra: object = {}) =>
    request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${t.key}`)
      .send({ query, k: 100, ...extra })
      .expect(200)
      .then((res) => (res.body.results as Fact[]).filter((fact) => fact.question === query));

  it('adds one sparql source per shipped query, at the interval its header asks for, once', async () => {
    const report = await sources.addPreset('wikidata');
    expect(report.added.map((source) => source.url)).toEqual(
      PRESETS.map((name) => `${endpoint.url}#${name}`),
    );
    expect(report.added.every((source) => source.kind === 'sparql' && source.query)).toBe(true);
    const hours = Object.fromEntries(
      report.added.map((source) => [source.url.split('#')[1], source.every_seconds / 3600]),
    );
    expect(hours).toEqual({
      'central-bank-governors': 24,
      'city-mayors': 24,
      'city-population': 168,
      'company-ceos': 24,
      'country-population': 168,
      'football-head-coaches': 6,
      'heads-of-government': 6,
      'heads-of-state': 6,
      'software-releases': 24,
      'state-offices': 6,
    });
    const again = await sources.addPreset('wikidata');
    expect(again).toEqual({ added: [], existing: PRESETS });
  });

  it('turns every row of each preset into a fact, one query at a time, politely', async () => {
    const reports = await sources.runDue();
    expect(reports.map((report) => [report.status, report.error])).toEqual(
      PRESETS.map(() => ['ok', undefined]),
    );
    const yielded = Object.fromEntries(
      reports.map((report) => [report.source.url.split('#')[1], report.added]),
    );
    // What the captured entities hold (see the stand-in): no company, club, software or
    // central bank among them, so those four presets select nothing.
    expect(yielded).toEqual({
      'central-bank-governors': 0,
      'city-mayors': 2,
      'city-population': 7,
      'company-ceos': 0,
      'country-population': 112,
      'football-head-coaches': 0,
      'heads-of-government': 5,
      'heads-of-state': 6,
      'software-releases': 0,
      'state-offices': 6,
    });
    expect(endpoint.maxInFlight).toBe(1);
    expect(endpoint.seen).toHaveLength(PRESETS.length);
    for (const seen of endpoint.seen) {
      expect(seen.method).toBe('POST');
      expect(seen.headers.accept).toBe('application/sparql-results+json');
      expect(seen.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
      expect(seen.headers['user-agent']).toMatch(
        /^freshfacts\/\d+\.\d+\.\d+ \(\+ops@freshfacts\.test\)$/,
      );
    }
  });

  it('answers as the issue asks: self-contained questions, terse answers, item pages as sources', async () => {
    expect(await search('Who is the head of government of the United Kingdom?')).toEqual([
      {
        question: 'Who is the head of government of the United Kingdom?',
        answer: 'Theresa May',
        true_by: '2016-07-13',
        sources: ['https://www.wikidata.org/wiki/Q145'],
      },
    ]);
    const [primeMinister] = await search('Who is the Prime Minister of the United Kingdom?');
    expect(primeMinister).toMatchObject({ answer: 'Theresa May', true_by: '2016-07-13' });
    const [mayor] = await search('Who is the mayor of London?');
    expect(mayor).toMatchObject({ answer: 'Sadiq Khan', true_by: '2016-05-09' });
    // Belize's statement has no start: `?true_by` unbound, so no date.
    const [monarch] = await search('Who is the head of state of Belize?');
    expect(monarch).toMatchObject({ answer: 'Elizabeth II', true_by: null });
    // Numbers read as the Wikidata entity extractor writes them; one fact per count since 2000.
    const berlin = await search('What is the population of Berlin?', { timeline: true });
    expect(berlin.map((fact) => [fact.answer, fact.true_by])).toEqual([
      ['3,469,849', '2014-12-31'],
      ['3,375,222', '2012-12-31'],
      ['3,326,002', '2011-12-31'],
      ['3,382,169', '2000-12-31'],
    ]);
  });

  it('adds nothing new when the presets run again: known facts only merge', async () => {
    const before = await facts.count();
    const reports = await sources.runDue({ all: true });
    expect(reports.every((report) => report.status === 'ok' && report.added === 0)).toBe(true);
    expect(reports.reduce((sum, report) => sum + report.merged, 0)).toBe(138);
    expect(await facts.count()).toBe(before);
  });

  it('counts and skips rows that break the fact rules, and merges the sources of a repeated fact', async () => {
    const xsdDate = 'http://www.w3.org/2001/XMLSchema#date';
    endpoint.custom = () => [
      factRow('Q1'),
      factRow('Q1', 'https://example.org/also-Q1'),
      { ...factRow('Q2'), true_by: undefined } as unknown as Row,
      { ...factRow('Q3'), true_by: literal('2025-02-28', xsdDate) },
      { ...factRow('Q4'), answer: undefined } as unknown as Row,
      { ...factRow('Q5'), answer: literal('Q42') },
      { ...factRow('Q6'), answer: uri('http://www.wikidata.org/entity/Q42') },
      { ...factRow('Q7'), true_by: literal('-0500-01-01T00:00:00Z') },
      { ...factRow('Q8'), true_by: literal('2025-02-30') },
      { ...factRow('Q9'), source: literal('ftp://example.org/x') },
      { ...factRow('Q10'), question: literal('  ') },
      { ...factRow('Q11'), answer: literal('x'.repeat(2001)) },
    ];
    const source = await sources.addQuery('rules', CUSTOM_QUERY, '1d');
    const [report] = await sources.runDue();
    expect(report).toMatchObject({ source: { id: source.id }, status: 'ok', added: 3 });
    expect(report.rejected).toEqual({
      'row without an answer': 1,
      'answer without a label': 1,
      'answer that is not text': 1,
      'true_by that is not a date from year 1 to 9999': 2,
      'source that is not an http(s) URL': 1,
      'row without a question': 1,
      'invalid fact': 1,
    });
    expect(await search('Who leads the test body Q1?')).toEqual([
      {
        question: 'Who leads the test body Q1?',
        answer: 'Leader of Q1',
        true_by: '2026-03-01',
        sources: ['https://www.wikidata.org/wiki/Q1', 'https://example.org/also-Q1'],
      },
    ]);
    const [undated] = await search('Who leads the test body Q2?');
    expect(undated.true_by).toBeNull();
    const [dated] = await search('Who leads the test body Q3?');
    expect(dated.true_by).toBe('2025-02-28');
    const listed = (await sources.list()).find((s) => s.id === source.id);
    expect(listed).toMatchObject({ last_status: 'ok', facts_added: 3, facts_rejected: 8 });
  });

  it("adds an operator's own query file, named by the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'freshfacts-sparql-'));
    try {
      const file = join(dir, 'nobel-laureates.rq');
      writeFileSync(file, CUSTOM_QUERY);
      const source = await sources.add(file, 'sparql', '7d');
      expect(source).toMatchObject({
        url: `${endpoint.url}#nobel-laureates`,
        kind: 'sparql',
        query: CUSTOM_QUERY,
        every_seconds: 7 * 86_400,
      });
      await sources.remove(source.id);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a query that is not SPARQL or lacks a fact variable, and stores nothing', async () => {
    const count = (await sources.list()).length;
    await expect(sources.addQuery('typo', 'SELEKT ?question WHERE {}')).rejects.toThrow(
      /^typo is not SPARQL 1\.1: Parse error on line 1/,
    );
    await expect(
      sources.addQuery('short', 'SELECT ?question ?answer WHERE { ?question ?p ?answer }'),
    ).rejects.toThrow(
      'short must select ?question, ?answer, ?true_by and ?source; missing ?true_by, ?source',
    );
    await expect(sources.addQuery('ask', 'ASK { ?s ?p ?o }')).rejects.toThrow(
      'ask must be a SELECT query',
    );
    expect(await sources.list()).toHaveLength(count);
  });

  it('never slows searches while a source hangs: the worker waits beside the request path', async () => {
    endpoint.custom = () => [factRow('Q100')];
    endpoint.misbehave = 'stall';
    await sources.addQuery('hangs', CUSTOM_QUERY, '1d');
    const seen = endpoint.seen.length;
    let finished = false;
    const run = sources.runDue().finally(() => (finished = true));
    while (endpoint.seen.length === seen) await new Promise((done) => setTimeout(done, 10));
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await search('Who is the head of state of France?');
      times.push(performance.now() - started);
    }
    // Still waiting on the endpoint (3 s timeout) while five searches came and went.
    expect(finished).toBe(false);
    expect(Math.max(...times)).toBeLessThan(1000);
    const [report] = await run;
    expect(report).toMatchObject({ status: 'failed', error: 'timed out after 3000 ms' });
    endpoint.misbehave = undefined;
  });

  // 429 last: its pause holds every later query of this process back.
  const failures: [Misbehaviour, string | RegExp][] = [
    ['malformed', 'malformed result: not JSON'],
    [
      'not-json-type',
      'malformed result: content type "text/html", not application/sparql-results+json',
    ],
    ['stall', 'timed out after 3000 ms'],
    ['huge', 'larger than the 262144-byte limit'],
    ['throttle', 'HTTP 429 (1 attempt)'],
  ];
  it.each(failures)(
    'a %s result leaves the store unchanged and the source marked for a retry',
    async (misbehaviour, error) => {
      endpoint.custom = () => Array.from({ length: 40 }, (_, i) => factRow(`Q${2000 + i}`));
      endpoint.misbehave = misbehaviour;
      const source = await sources.addQuery(`fails-${misbehaviour}`, CUSTOM_QUERY, '1d');
      const before = await facts.count();
      const [report] = await sources.runDue();
      const after = await sourceById(source.id);
      expect(report).toMatchObject({
        source: { id: source.id },
        status: 'failed',
        error,
        added: 0,
      });
      expect(await facts.count()).toBe(before);
      expect(await search('Who leads the test body Q2000?')).toEqual([]);
      expect(after).toMatchObject({ last_status: 'failed', failures: 1, facts_added: 0 });
      const retryIn = (after.next_run_at.getTime() - Date.now()) / 1000;
      // Retried after a minute (the first backoff), or when the endpoint's Retry-After says.
      const wait = misbehaviour === 'throttle' ? 120 : 60;
      expect(retryIn).toBeGreaterThan(wait - 10);
      expect(retryIn).toBeLessThanOrEqual(wait);
      endpoint.misbehave = undefined;
    },
  );

  it('after a 429, no sparql source asks the endpoint again before its Retry-After is over', async () => {
    const seen = endpoint.seen.length;
    const all = await sources.list();
    for (const source of all.filter((s) => s.kind === 'sparql')) {
      expect(source.next_run_at.getTime() - Date.now()).toBeGreaterThan(100_000);
    }
    endpoint.custom = () => [factRow('Q3000')];
    await sources.addQuery('after-429', CUSTOM_QUERY, '1d');
    const [report] = await sources.runDue();
    expect(report.status).toBe('failed');
    expect(report.error).toMatch(/^the endpoint asked for a pause; 1\d\d s left$/);
    expect(endpoint.seen.length).toBe(seen);
  });

  async function sourceById(id: string): Promise<Source> {
    const found = (await sources.list()).find((source) => source.id === id);
    if (!found) throw new Error(`no source ${id}`);
    return found;
  }
});
