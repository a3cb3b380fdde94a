import request from 'supertest';
import { DEFAULT_SEED_FILE } from '../../src/config/config';
import { IngestService } from '../../src/facts/ingest.service';
import { startApp, TestApp } from '../support/app';

/**
 * The corpus a new install serves (corpus/facts-dev.jsonl) reaches mid-2026, so a
 * model released in late 2025 still learns something newer than its cutoff, under
 * the id the table uses and under the vendor's own.
 */
describe('the shipped corpus', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
    await t.app.get(IngestService).ingestFile(DEFAULT_SEED_FILE);
  }, 180_000);
  afterAll(() => t.close());

  const search = (body: object) =>
    request(t.url).post('/v1/search').set('Authorization', `Bearer ${t.key}`).send(body);

  it.each(['anthropic/claude-sonnet-4.5', 'claude-sonnet-4-5-20250929'])(
    'answers %s with facts after its cutoff, newest first',
    async (model_id) => {
      const response = await search({
        query: 'Which country announced a ban on social media for children?',
        model_id,
      });
      expect(response.status).toBe(200);
      expect(response.headers['freshfacts-model-cutoff']).toBe('2025-07-01');
      const days = (response.body.results as { true_by: string }[]).map((f) => f.true_by);
      expect(days.length).toBeGreaterThan(0);
      for (const day of days) expect(day > '2025-07-01').toBe(true);
      expect([...days].sort().reverse()).toEqual(days);
    },
  );

  it('finds a close match for the question Swagger shows as the example', async () => {
    const docs = await request(t.url).get('/docs-json').expect(200);
    const example = docs.body.components.schemas.SearchRequestDto.properties.query.example;
    const response = await search({ query: example });
    expect(response.headers['freshfacts-match']).toBe('close');
    expect(response.body.results.length).toBeGreaterThan(0);
  });

  it('holds 6,226 facts up to 2026-07-03', async () => {
    const response = await request(t.url).get('/v1/corpus').set('Authorization', `Bearer ${t.key}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ facts: 6226, newest_true_by: '2026-07-03' });
  });
});
