import request from 'supertest';
import { ModelCutoffs } from '../../src/models/model-cutoffs';
import { nextDay } from '../../src/common/dates';
import { startApp, TestApp } from '../support/app';
import { CATANIA, fact, matches, OTHER } from '../support/corpus';

const GPT4O = ModelCutoffs.fromFile().lookup('openai/gpt-4o')!;

// Dated so that a backtest, a model floor and an undated fact each change the answer.
const FACTS = [
  ...CATANIA,
  ...OTHER,
  fact(
    'Who was the head coach of the team Calcio Catania from 2024 to 2025?',
    'Domenico Toscano',
    '2024-01-01',
  ),
  fact(
    'Which coach did Calcio Catania appoint on the day of the cutoff?',
    'Cutoff Day Coach',
    GPT4O.cutoff,
  ),
  fact(
    'Which coach did Calcio Catania appoint the day after the cutoff?',
    'Day After Coach',
    nextDay(GPT4O.cutoff),
  ),
  fact('Who is the honorary president of Calcio Catania?', 'Undated President', null),
  ...matches(120),
];

describe('POST /v1/search', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ facts: FACTS });
  });
  afterAll(() => t.close());

  const search = (body: unknown) =>
    request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${t.key}`)
      .send(body as object);

  it('answers with the newest close match first and exactly the four fields', async () => {
    const res = await search({ query: 'Who is the head coach of Calcio Catania?' }).expect(200);
    expect(Object.keys(res.body)).toEqual(['results']);
    expect(res.body.results[0].answer).toBe('Domenico Toscano');
    for (const result of res.body.results) {
      expect(Object.keys(result).sort()).toEqual(['answer', 'question', 'sources', 'true_by']);
    }
    const dates = res.body.results.map((r: { true_by: string | null }) => r.true_by ?? '');
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it('keeps undated facts, last, when no date bound applies', async () => {
    const res = await search({
      query: 'Who leads Calcio Catania, coach or president?',
      k: 100,
    }).expect(200);
    const answers = res.body.results.map((r: { answer: string }) => r.answer);
    expect(answers).toContain('Undated President');
    const undated = res.body.results.findIndex(
      (r: { true_by: string | null }) => r.true_by === null,
    );
    expect(
      res.body.results.slice(undated).every((r: { true_by: string | null }) => r.true_by === null),
    ).toBe(true);
  });

  it('orders by relevance when timeline is false', async () => {
    const res = await search({
      query: 'head coach of Calcio Catania from 2008 to 2009',
      timeline: false,
    }).expect(200);
    expect(res.body.results[0].answer).toBe('Walter Zenga');
  });

  it('never shows a backtest the future: true_by_max excludes newer matches', async () => {
    const res = await search({
      query: 'Who is the head coach of Calcio Catania?',
      true_by_max: '2010-06-30',
    }).expect(200);
    expect(res.body.results[0].answer).toBe('Walter Zenga');
    for (const r of res.body.results) expect(r.true_by <= '2010-06-30').toBe(true);
  });

  it('reads a datetime bound without offset as UTC and compares calendar days inclusively', async () => {
    const res = await search({
      query: 'Calcio Catania coach 2008',
      true_by_min: '2008-01-01T23:59:59',
      true_by_max: '2008-01-01T23:59:59.5',
    }).expect(200);
    expect(res.body.results.map((r: { answer: string }) => r.answer)).toEqual(['Walter Zenga']);
  });

  it('applies the model floor: a fact dated on the cutoff is excluded, the next day included', async () => {
    const res = await search({
      query: 'Which coach did Calcio Catania appoint?',
      model_id: 'openai/gpt-4o-2024-08-06',
      k: 100,
    }).expect(200);
    expect(res.headers['freshfacts-model-cutoff']).toBe(GPT4O.cutoff);
    const answers = res.body.results.map((r: { answer: string }) => r.answer);
    expect(answers).toContain('Day After Coach');
    expect(answers).not.toContain('Cutoff Day Coach');
    for (const r of res.body.results) expect(r.true_by > GPT4O.cutoff).toBe(true);
  });

  it.each([
    'claude-sonnet-4-5-20250929',
    'anthropic/claude-sonnet-4-5',
    'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  ])('applies the floor of a model id as agents send it: %s', async (modelId) => {
    const cutoff = ModelCutoffs.fromFile().lookup('anthropic/claude-sonnet-4.5')!.cutoff;
    const res = await search({
      query: 'Who was the head coach of Calcio Catania?',
      model_id: modelId,
      k: 100,
    }).expect(200);
    expect(res.headers['freshfacts-model-cutoff']).toBe(cutoff);
    const days = res.body.results.map((r: { true_by: string }) => r.true_by);
    expect(days).not.toContain('2024-01-01');
    for (const day of days) expect(day > cutoff).toBe(true);
  });

  it('lets true_by_min replace the model floor', async () => {
    const res = await search({
      query: 'Which coach did Calcio Catania appoint?',
      model_id: 'openai/gpt-4o',
      true_by_min: GPT4O.cutoff,
      k: 100,
    }).expect(200);
    expect(res.body.results.map((r: { answer: string }) => r.answer)).toContain('Cutoff Day Coach');
  });

  it('applies no floor for an unknown model and says so in a header', async () => {
    const res = await search({
      query: 'Who is the head coach of Calcio Catania?',
      model_id: 'acme/unknown-model',
    }).expect(200);
    expect(res.headers['freshfacts-model-cutoff']).toBe('unknown');
    expect(res.body.results.map((r: { answer: string }) => r.answer)).toContain('Silvio Baldini');
  });

  it('drops undated facts under any date bound', async () => {
    for (const bound of [
      { true_by_min: '1900-01-01' },
      { true_by_max: '2100-01-01' },
      { model_id: 'openai/gpt-3.5-turbo' },
    ]) {
      const res = await search({
        query: 'honorary president of Calcio Catania',
        k: 100,
        ...bound,
      }).expect(200);
      expect(res.body.results.length).toBeGreaterThan(0);
      expect(res.body.results.every((r: { true_by: string | null }) => r.true_by !== null)).toBe(
        true,
      );
    }
  });

  it('clamps k to 10..100 rather than rejecting it', async () => {
    const few = await search({ query: 'final score of league match', k: 5 }).expect(200);
    expect(few.body.results).toHaveLength(10);
    const many = await search({ query: 'final score of league match', k: 500 }).expect(200);
    expect(many.body.results).toHaveLength(100);
    const integralFloat = await search({ query: 'final score of league match', k: 20.0 }).expect(
      200,
    );
    expect(integralFloat.body.results).toHaveLength(20);
  });

  it('returns the nearest facts for an off-topic question instead of nothing, and says so', async () => {
    const res = await search({ query: 'How do I bake sourdough bread at home?' }).expect(200);
    expect(res.body.results.length).toBeGreaterThan(0);
    expect(res.headers['freshfacts-match']).toBe('nearest');
    const close = await search({ query: 'Who is the head coach of Calcio Catania?' }).expect(200);
    expect(close.headers['freshfacts-match']).toBe('close');
  });

  it('returns nothing, not the future, when no fact lies in the window', async () => {
    const res = await search({
      query: 'Who is the head coach of Calcio Catania?',
      true_by_min: '2090-01-01',
    }).expect(200);
    expect(res.body.results).toEqual([]);
    expect(res.headers['freshfacts-match']).toBe('nearest');
  });

  it('ignores unknown fields', async () => {
    await search({ query: 'Who hosted the 2022 World Cup?', colour: 'blue' }).expect(200);
  });
});

describe('a narrow date window', () => {
  let t: TestApp;
  // 400 near-identical questions outrank the one fact in the window by far; a
  // top-N cut before the date filter would lose it.
  const crowd = Array.from({ length: 400 }, (_, i) =>
    fact(
      `Who scored the winning goal for Calcio Catania in league match ${i + 1}?`,
      `Player ${i + 1}`,
      '2020-05-01',
    ),
  );
  const needle = fact(
    'Which striker did the Sicilian club sign in the summer?',
    'Needle Striker',
    '2015-07-01',
  );
  beforeAll(async () => {
    t = await startApp({ facts: [...crowd, needle] });
  });
  afterAll(() => t.close());

  it('still finds a fact that is far down the overall ranking', async () => {
    const query = 'Who scored the winning goal for Calcio Catania?';
    const all = await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${t.key}`)
      .send({ query, k: 100 })
      .expect(200);
    expect(all.body.results.map((r: { answer: string }) => r.answer)).not.toContain(
      'Needle Striker',
    );
    const windowed = await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${t.key}`)
      .send({ query, true_by_min: '2015-01-01', true_by_max: '2015-12-31' })
      .expect(200);
    expect(windowed.body.results.map((r: { answer: string }) => r.answer)).toEqual([
      'Needle Striker',
    ]);
  });
});
