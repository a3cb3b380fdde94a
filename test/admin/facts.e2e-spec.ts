import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { IngestService } from '../../src/facts/ingest.service';
import { startApp, TestApp } from '../support/app';
import { CATANIA, fact } from '../support/corpus';

const TOKEN = 'admin-token-for-tests-0123456789';
const ZENGA = CATANIA[1];

describe('facts through the admin API while the service runs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ facts: CATANIA, env: { FRESHFACTS_ADMIN_TOKEN: TOKEN } });
  });
  afterAll(() => t.close());

  const as = (req: request.Test) => req.set('Authorization', `Bearer ${TOKEN}`);
  const push = (body: string, contentType = 'application/x-ndjson') =>
    as(request(t.url).post('/admin/facts')).set('Content-Type', contentType).send(body);
  const search = async (query: string) =>
    (
      await request(t.url)
        .post('/v1/search')
        .set('Authorization', `Bearer ${t.key}`)
        .send({ query, timeline: false })
        .expect(200)
    ).body.results as { answer: string }[];
  const idOf = async (question: string) =>
    (
      (await as(request(t.url).get('/admin/facts')).query({ q: question }).expect(200)).body as {
        id: string;
        question: string;
      }[]
    ).find((f) => f.question === question)!.id;

  it('takes JSON Lines, counts what it did and lists bad lines by number', async () => {
    const lines = [
      JSON.stringify(fact('Which club did Toni Kroos join in 2014?', 'Real Madrid', '2014-07-17')),
      '',
      '{"question": "broken"',
      JSON.stringify({ ...fact('q?', 'a', null), true_by: 'soon' }),
      JSON.stringify(ZENGA),
    ];
    const res = await push(lines.join('\n')).expect(200);
    expect(res.body).toEqual({
      added: 1,
      merged: 1,
      retracted: 0,
      rejected: [
        { line: 3, errors: [expect.stringContaining('not valid JSON')] },
        { line: 4, errors: [expect.stringContaining('true_by must be a day')] },
      ],
      dropped_sources: 0,
    });
    expect((await search('Which club did Toni Kroos join?'))[0].answer).toBe('Real Madrid');
  });

  it('takes a JSON array too, numbering its items', async () => {
    const res = await push(
      JSON.stringify([
        fact('Who won the 2023 Tour de France?', 'Jonas Vingegaard', '2023-07-23'),
        7,
      ]),
      'application/json',
    ).expect(200);
    expect(res.body).toMatchObject({ added: 1, rejected: [{ line: 2 }] });
    expect((await search('Who won the Tour de France in 2023?'))[0].answer).toBe(
      'Jonas Vingegaard',
    );
  });

  it('refuses a body that holds no fact, or a strict push with a bad line, writing nothing', async () => {
    const none = await push('{"nope": 1}\nnot json\n').expect(422);
    expect(none.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(none.body.errors.map((e: { loc: unknown[] }) => e.loc)).toEqual([
      ['body', 1],
      ['body', 1],
      ['body', 1],
      ['body', 1],
      ['body', 2],
    ]);
    await push('').expect(422);
    await push('{"a": 1}', 'application/json').expect(422);
    const good = JSON.stringify(fact('Who won the 2022 Giro?', 'Jai Hindley', '2022-05-29'));
    const strict = await as(request(t.url).post('/admin/facts?strict=true'))
      .set('Content-Type', 'application/x-ndjson')
      .send(`${good}\n[]\n`)
      .expect(422);
    expect(strict.body.errors).toEqual([{ loc: ['body', 2], msg: 'a fact must be a JSON object' }]);
    expect(await as(request(t.url).get('/admin/facts')).query({ q: 'Giro' })).toMatchObject({
      body: [],
    });
  });

  it('refuses a push over the documented size with 413 naming the limit', async () => {
    const many = Array.from({ length: 1001 }, (_, i) =>
      JSON.stringify(fact(`Question number ${i}?`, `${i}`, null)),
    ).join('\n');
    const res = await push(many).expect(413);
    expect(res.body.detail).toContain('at most 1000 facts');
    const huge = await push('x'.repeat(1024 * 1024 + 1)).expect(413);
    expect(huge.body).toMatchObject({ type: '/problems/payload-too-large' });
    expect(huge.body.detail).toContain('1024 KiB');
  });

  it('stores a batch whole or not at all', async () => {
    const db = t.app.get(DataSource);
    const before = await db.query(`SELECT count(*)::int AS n FROM facts`);
    // The second fact's insert fails inside the batch's one transaction.
    await db.query(`
      CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.answer = 'poison' THEN RAISE EXCEPTION 'poisoned'; END IF; RETURN NEW; END $$`);
    await db.query(
      `CREATE TRIGGER refuse_poison BEFORE INSERT ON facts FOR EACH ROW EXECUTE FUNCTION refuse_poison()`,
    );
    try {
      await push(
        [
          JSON.stringify(fact('Which team won the atomic cup?', 'Team A', '2020-01-01')),
          JSON.stringify(fact('Which team lost the atomic cup?', 'poison', '2020-01-01')),
        ].join('\n'),
      ).expect(500);
    } finally {
      await db.query(`DROP TRIGGER refuse_poison ON facts`);
      await db.query(`DROP FUNCTION refuse_poison`);
    }
    expect(await db.query(`SELECT count(*)::int AS n FROM facts`)).toEqual(before);
  });

  it('retracts a fact from search, research and MCP; ingest does not revive it; restore does', async () => {
    const id = await idOf(ZENGA.question);
    expect((await search('Who coached Calcio Catania from 2008 to 2009?'))[0].answer).toBe(
      'Walter Zenga',
    );
    const stats = t.app.get(DataSource);
    const countsBefore = await statistics(stats);

    const retracted = await as(request(t.url).delete(`/admin/facts/${id}`))
      .send({ reason: 'takedown request' })
      .expect(200);
    expect(retracted.body).toMatchObject({
      id,
      answer: 'Walter Zenga',
      retraction: {
        reason: 'takedown request',
        retracted_by: expect.stringMatching(/^admin:[0-9a-f]{12}$/),
      },
    });
    expect(retracted.body.origins.length).toBeGreaterThan(0);
    expect(JSON.stringify(retracted.body)).not.toContain(TOKEN);

    const answers = async () => [
      ...(await search('Who coached Calcio Catania from 2008 to 2009?')).map((f) => f.answer),
      ...(
        await request(t.url)
          .post('/api/research')
          .set('Authorization', `Bearer ${t.key}`)
          .send({ query: 'Calcio Catania head coach 2008', timeline: false })
          .expect(200)
      ).body.research_guidance.map((f: { answer: string }) => f.answer),
      ...(await mcpSearch(t.url, t.key, 'Calcio Catania head coach 2008')),
    ];
    expect(await answers()).not.toContain('Walter Zenga');

    // The statistics the ranking weighs by are as a fresh refresh would leave them.
    const afterRetract = await statistics(stats);
    expect(afterRetract.facts).toBe(countsBefore.facts - 1);
    expect(afterRetract).toEqual(await recomputed(stats));

    const again = await push(JSON.stringify(ZENGA)).expect(200);
    expect(again.body).toMatchObject({ added: 0, merged: 0, retracted: 1 });
    // The path the sources worker and the seeding take, with the fact in another case.
    const fromSource = await t.app
      .get(IngestService)
      .ingestValues([{ ...ZENGA, answer: 'WALTER ZENGA' }], {
        origin: 'https://x.test/',
        kind: 'feed',
      });
    expect(fromSource).toMatchObject({ added: 0, merged: 0, retracted: 1 });
    expect(await answers()).not.toContain('Walter Zenga');

    const shown = await as(request(t.url).get(`/admin/facts/${id}`)).expect(200);
    expect(shown.body.retraction.reason).toBe('takedown request');
    const conflict = await as(request(t.url).delete(`/admin/facts/${id}`))
      .send({ reason: 'twice' })
      .expect(409);
    expect(conflict.body.type).toBe('/problems/fact-retracted');

    const restored = await as(request(t.url).post(`/admin/facts/${id}/restore`)).expect(200);
    expect(restored.body).toMatchObject({ id, retraction: null, answer: 'Walter Zenga' });
    expect(restored.body.origins).toEqual(retracted.body.origins);
    expect(await answers()).toContain('Walter Zenga');
    expect(await statistics(stats)).toEqual(countsBefore);
    expect(await statistics(stats)).toEqual(await recomputed(stats));
    await as(request(t.url).post(`/admin/facts/${id}/restore`)).expect(409);
  });

  it('answers unknown ids and bad bodies with problems, never 500', async () => {
    for (const id of ['999999', '0', 'abc', '99999999999999999999', '-1']) {
      const res = await as(request(t.url).delete(`/admin/facts/${id}`))
        .send({ reason: 'x' })
        .expect(404);
      expect(res.body.type).toBe('/problems/fact-not-found');
      await as(request(t.url).get(`/admin/facts/${id}`)).expect(404);
      await as(request(t.url).post(`/admin/facts/${id}/restore`)).expect(404);
    }
    const id = await idOf(CATANIA[0].question);
    const blank = await as(request(t.url).delete(`/admin/facts/${id}`))
      .send({ reason: '  ' })
      .expect(422);
    expect(blank.body.errors[0].loc).toEqual(['body', 'reason']);
    await as(request(t.url).delete(`/admin/facts/${id}`)).expect(422);
    await as(request(t.url).get('/admin/facts')).expect(422);
    await as(request(t.url).get('/admin/facts')).query({ q: 'x', limit: 'many' }).expect(422);
    await request(t.url).post('/admin/facts').send('[]').expect(401);
    const nul = await push(JSON.stringify(fact('Who\u0000?', 'a', null))).expect(422);
    expect(nul.body.errors[0].msg).toContain('NUL');
  });
});

/** The ranking's statistics as stored. */
async function statistics(db: DataSource) {
  const [corpus] = await db.query(`SELECT facts::int AS facts FROM corpus_stats`);
  return {
    facts: corpus.facts as number,
    lexemes: await db.query(`SELECT lexeme, ndoc FROM lexeme_stats ORDER BY lexeme`),
    months: await db.query(`SELECT month::text, facts FROM fact_months ORDER BY month`),
  };
}

/** The same statistics as the refresh after an ingest computes them from the facts. */
async function recomputed(db: DataSource) {
  const [count] = await db.query(`SELECT count(*)::int AS facts FROM facts`);
  return {
    facts: count.facts as number,
    lexemes: await db.query(
      `SELECT term AS lexeme, count(*)::int AS ndoc FROM fact_terms GROUP BY term ORDER BY term`,
    ),
    months: await db.query(
      `SELECT date_trunc('month', true_by)::date::text AS month, count(*)::int AS facts
       FROM facts WHERE true_by IS NOT NULL GROUP BY 1 ORDER BY 1`,
    ),
  };
}

async function mcpSearch(url: string, key: string, query: string): Promise<string[]> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', url), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  try {
    const result = (await client.callTool({
      name: 'search_facts',
      arguments: { query, timeline: false },
    })) as CallToolResult;
    const structured = result.structuredContent as { results: { answer: string }[] };
    return structured.results.map((f) => f.answer);
  } finally {
    await client.close();
  }
}
