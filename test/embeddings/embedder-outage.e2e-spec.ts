import request from 'supertest';
import { startApp, TestApp } from '../support/app';

// The remote embeddings API is configured at a loopback port where nothing listens.
describe('when the configured embeddings API is down', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({
      env: {
        FRESHFACTS_EMBEDDER: 'openai',
        FRESHFACTS_EMBEDDINGS_URL: 'http://127.0.0.1:1/v1',
        FRESHFACTS_EMBEDDINGS_MODEL: 'm',
      },
    });
  });
  afterAll(() => t.close());

  it('answers 503 with a problem body and Retry-After, not 500', async () => {
    const res = await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${t.key}`)
      .send({ query: 'anything' })
      .expect(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toMatchObject({ type: '/problems/embedder-unavailable', status: 503 });
    expect(res.body.detail).toMatch(/unreachable/);
  });
});
