import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { SourceReport, SourcesService } from '../../src/sources/sources.service';
import { startApp, TestApp } from '../support/app';
import { ChatRequest, completion, UPSTREAM_DIR, UpstreamServer } from '../support/upstream';

const FEEDS = readdirSync(join(UPSTREAM_DIR, 'feeds')).map((name) => `feeds/${name}`);
const SKY = 'pages/skynews_mourinho-tottenham-manager_2019-11-20.html';
const BBC = 'pages/bbc_world-europe-50473792_2019-11-19.html';
const TWINCITIES = 'pages/twincities_st-louis-park-elects-mayor_2023-11-08.html';
const CAYMAN = 'pages/caymancompass_prison-escape_2022-05-04.html';

interface Document {
  source: string;
  url: string;
  title: string;
  published_day: string | null;
  text: string;
}

const documents = (t: TestApp) =>
  t.app.get(DataSource).query<Document[]>(
    `SELECT s.url AS source, d.url, d.title, to_char(d.published_day, 'YYYY-MM-DD') AS published_day, d.text
       FROM documents d JOIN sources s ON s.id = d.source_id`,
  );

describe('feeds and pages with no LLM configured', () => {
  let upstream: UpstreamServer;
  let t: TestApp;
  let reports: SourceReport[];

  beforeAll(async () => {
    upstream = await new UpstreamServer().start();
    t = await startApp();
    const sources = t.app.get(SourcesService);
    for (const feed of FEEDS) await sources.add(upstream.file(feed), 'feed');
    for (const page of [SKY, CAYMAN]) await sources.add(upstream.file(page), 'page');
    reports = await sources.runDue();
  });
  afterAll(async () => {
    await t.close();
    await upstream.stop();
  });

  it('stores every feed item and article for later extraction, and adds no fact', async () => {
    const byUrl = new Map(reports.map((report) => [report.source.url, report]));
    for (const feed of FEEDS) expect(byUrl.get(upstream.file(feed))?.status).toBe('ok');
    expect(byUrl.get(upstream.file(SKY))).toMatchObject({
      status: 'ok',
      newDocuments: 1,
      pending: 1,
    });
    const stored = await documents(t);
    // 55 + 15 + 2 + 1 + 40 + 1 + 20 + 20 + 15 + 29 items, and the Sky News article.
    expect(stored).toHaveLength(199);
    expect(reports.every((report) => report.added === 0)).toBe(true);
  });

  it('reads real feeds as they are: undeclared Latin-1, foreign and non-RFC dates, relative links', async () => {
    const stored = await documents(t);
    const uol = stored.filter((doc) => doc.source.includes('uol-noticias'));
    expect(uol).toHaveLength(15);
    expect(uol.every((doc) => doc.published_day === '2018-09-24')).toBe(true);
    expect(uol.map((doc) => doc.title).join(' ')).toMatch(/simulações de 2º turno/);
    const tpm = stored.filter((doc) =>
      doc.url.startsWith('http://talkingpointsmemo.com/livewire/'),
    );
    expect(tpm.length).toBeGreaterThan(0);
    const nbc = stored.find((doc) => doc.url.includes('nbcnewyork.com'));
    expect(nbc?.published_day).toBe('2023-12-16');
    const giornale = stored.find((doc) => doc.url.includes('ilgiornale.it'));
    expect(giornale?.published_day).toBe('2022-11-15');
    expect(
      stored.filter((doc) => doc.url.includes('techcrunch') || doc.url.includes('feedproxy')),
    ).toHaveLength(20);
    expect(stored.every((doc) => !doc.text.includes('<p>'))).toBe(true);
  });

  it("takes an article page's main text and its published date from the page metadata", async () => {
    const sky = (await documents(t)).find((doc) => doc.url === upstream.file(SKY));
    expect(sky?.published_day).toBe('2019-11-20');
    expect(sky?.title).toMatch(/Jose Mourinho agrees deal to replace Mauricio Pochettino/);
    expect(sky?.text).toMatch(/until the end of the 2022\/23 season\.\n\nPochettino was sacked/);
  });

  it('records a page without article text as failing, without stopping the others', () => {
    const cayman = reports.find((report) => report.source.url === upstream.file(CAYMAN));
    expect(cayman).toMatchObject({ status: 'failed' });
    expect(cayman?.error).toMatch(/^no article text found \(\d+ characters of main text\)$/);
  });
});

describe('facts extracted by an LLM from articles, each checked before it is stored', () => {
  let upstream: UpstreamServer;
  let t: TestApp;
  let sources: SourcesService;
  let chatDown = true;
  const asked: ChatRequest[] = [];

  // The chat endpoint is a local stand-in returning fixed completions per article
  // (no model can run here): good facts, and facts the checks must refuse.
  const COMPLETIONS: Record<string, string> = {
    'Jose Mourinho agrees deal': JSON.stringify({
      facts: [
        {
          question: 'Who replaced Mauricio Pochettino as manager of Tottenham Hotspur?',
          answer: 'Jose Mourinho',
        },
        {
          question: 'Which club sacked Jose Mourinho in December 2018?',
          answer: 'Manchester United',
        },
        // Not in the text: the model's own knowledge.
        { question: 'Who owns Tottenham Hotspur?', answer: 'Joe Lewis' },
        // Cannot stand alone.
        { question: 'Who did he replace?', answer: 'Mauricio Pochettino' },
        { question: 'Which club does the article say Jose Mourinho joined?', answer: 'Tottenham' },
        {
          question: 'Which Tottenham manager was sacked last night?',
          answer: 'Mauricio Pochettino',
        },
      ],
    }),
    'Sweden drops Assange': '{"facts": [{"question": "Who is Julian Assange?", "answ',
    'St. Louis Park elects': JSON.stringify({
      facts: [
        {
          question: 'Who was elected mayor of St. Louis Park, Minnesota, in November 2023?',
          answer: 'Nadia Mohamed',
        },
      ],
    }),
    'Winnipeg high school': JSON.stringify({
      facts: [
        {
          question: 'Which Winnipeg high school offers custom-made hijabs for Muslim athletes?',
          answer: 'Dakota Collegiate',
        },
      ],
    }),
  };

  beforeAll(async () => {
    upstream = await new UpstreamServer().start();
    upstream.chat = (body) => {
      asked.push(body);
      const message = body.messages[1].content;
      if (chatDown && message.includes('St. Louis Park')) return { status: 500 };
      const key = Object.keys(COMPLETIONS).find((title) => message.includes(title));
      return completion(key ? COMPLETIONS[key] : '{"facts": []}');
    };
    t = await startApp({
      env: {
        FRESHFACTS_LLM_URL: `${upstream.url}/v1`,
        FRESHFACTS_LLM_MODEL: 'stand-in-model',
        FRESHFACTS_LLM_API_KEY: 'sk-test-stand-in',
      },
    });
    sources = t.app.get(SourcesService);
    for (const page of [SKY, BBC, TWINCITIES]) await sources.add(upstream.file(page), 'page');
    await sources.add(upstream.file('feeds/huffpost-canada_2017-10-17.rss.xml'), 'feed');
  });
  afterAll(async () => {
    await t.close();
    await upstream.stop();
  });

  const search = (query: string) =>
    request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${t.key}`)
      .send({ query })
      .expect(200)
      .then(
        (res) =>
          res.body.results as {
            question: string;
            answer: string;
            true_by: string;
            sources: string[];
          }[],
      );

  let first: Map<string, SourceReport>;

  it('keeps supported, self-contained facts, dated by the article and sourced to it', async () => {
    first = new Map((await sources.runDue()).map((report) => [report.source.url, report]));
    expect(first.get(upstream.file(SKY))).toMatchObject({
      status: 'ok',
      added: 2,
      rejected: { 'answer not in the text': 1, 'not self-contained': 3 },
    });
    const [fact] = await search('Who replaced Mauricio Pochettino at Tottenham?');
    expect(fact).toEqual({
      question: 'Who replaced Mauricio Pochettino as manager of Tottenham Hotspur?',
      answer: 'Jose Mourinho',
      true_by: '2019-11-20',
      sources: [upstream.file(SKY)],
    });
    const [hijabs] = await search('Which school in Winnipeg has custom hijabs for athletes?');
    expect(hijabs).toMatchObject({ answer: 'Dakota Collegiate', true_by: '2017-10-17' });
    expect(hijabs.sources[0]).toMatch(
      /^http:\/\/www\.huffingtonpost\.ca\/2017\/10\/17\/winnipeg-high-school/,
    );
  });

  it('asks for structured output with the article text and the configured model and key', () => {
    const sky = asked.find((body) =>
      body.messages[1].content.includes('Jose Mourinho agrees deal'),
    );
    expect(sky).toMatchObject({
      model: 'stand-in-model',
      response_format: { type: 'json_schema' },
    });
    expect(sky?.messages[1].content).toMatch(
      /^Title: .*\nPublished: 2019-11-20\n\nJose Mourinho has agreed/,
    );
    const call = upstream.requests('/v1/chat/completions')[0];
    expect(call.headers.authorization).toBe('Bearer sk-test-stand-in');
  });

  it('rejects a malformed completion whole and counts it', () => {
    expect(first.get(upstream.file(BBC))).toMatchObject({
      status: 'ok',
      added: 0,
      rejected: { 'malformed completion': 1 },
    });
  });

  it('keeps the article when the chat API fails, and extracts it on a later run', async () => {
    expect(first.get(upstream.file(TWINCITIES))).toMatchObject({
      status: 'failed',
      error: 'extractor: chat API answered 500',
      pending: 1,
    });
    chatDown = false;
    const reports = await sources.runDue({ all: true });
    const twincities = reports.find((report) => report.source.url === upstream.file(TWINCITIES));
    // The page itself is unchanged (304); its stored article is what is read.
    expect(twincities).toMatchObject({ status: 'not-modified', added: 1, pending: 0 });
    const [mayor] = await search('Who is the mayor of St. Louis Park?');
    expect(mayor).toMatchObject({ answer: 'Nadia Mohamed', true_by: '2023-11-09' });
  });

  it('neither fetches nor asks again for articles already read', async () => {
    const before = asked.length;
    const reports = await sources.runDue({ all: true });
    expect(reports.map((report) => report.status)).toEqual(Array(4).fill('not-modified'));
    expect(reports.every((report) => report.added === 0)).toBe(true);
    expect(asked.length).toBe(before);
  });
});
