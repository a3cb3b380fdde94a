import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { CATANIA, OTHER, matches } from '../support/corpus';

describe('POST /api/research', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ facts: [...CATANIA, ...OTHER, ...matches(120)] });
  });
  afterAll(() => t.close());

  const research = (body: object) =>
    request(t.url).post('/api/research').set('Authorization', `Bearer ${t.key}`).send(body);

  it('answers under research_guidance with the same engine as search', async () => {
    const res = await research({ query: 'Who is the head coach of Calcio Catania?' }).expect(200);
    expect(Object.keys(res.body)).toEqual(['research_guidance']);
    // Exactly the three Catania coaches, newest first: Real Madrid's coach (2019) shares
    // "head coach of the team" but not the club, and stays out of the close matches.
    expect(res.body.research_guidance.map((f: { answer: string }) => f.answer)).toEqual([
      'Vincenzo Montella',
      'Walter Zenga',
      'Silvio Baldini',
    ]);
    const search = await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${t.key}`)
      .send({ query: 'Who is the head coach of Calcio Catania?' })
      .expect(200);
    expect(res.body.research_guidance).toEqual(search.body.results);
    expect(res.headers['freshfacts-match']).toBe('close');
    const offTopic = await research({ query: 'How do I bake sourdough bread at home?' });
    expect(offTopic.headers['freshfacts-match']).toBe('nearest');
  });

  it('ignores true_by_min and true_by_max, which are not its parameters', async () => {
    const res = await research({
      query: 'Who is the head coach of Calcio Catania?',
      true_by_min: '2090-01-01',
      true_by_max: 'garbage',
    }).expect(200);
    expect(res.body.research_guidance[0].answer).toBe('Vincenzo Montella');
  });

  it('applies model_id, k and timeline like search', async () => {
    const floored = await research({
      query: 'Who is the head coach of Calcio Catania?',
      model_id: 'anthropic/claude-3-5-sonnet-20240620:beta',
      k: 100,
    }).expect(200);
    expect(floored.headers['freshfacts-model-cutoff']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(
      floored.body.research_guidance.every(
        (f: { true_by: string }) => f.true_by > floored.headers['freshfacts-model-cutoff'],
      ),
    ).toBe(true);
    const many = await research({ query: 'final score of league match', k: 1000 }).expect(200);
    expect(many.body.research_guidance).toHaveLength(100);
    const relevant = await research({
      query: 'head coach Calcio Catania 2006 2008',
      timeline: false,
    }).expect(200);
    expect(relevant.body.research_guidance[0].answer).toBe('Silvio Baldini');
  });
});
