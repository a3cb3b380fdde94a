import request from 'supertest';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { startApp, TestApp } from '../support/app';
import { CATANIA } from '../support/corpus';

describe('API keys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ facts: CATANIA });
  });
  afterAll(() => t.close());

  const body = { query: 'Who coached Calcio Catania?' };

  it('lets a valid bearer key through on both endpoints', async () => {
    await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${t.key}`)
      .send(body)
      .expect(200);
    await request(t.url)
      .post('/api/research')
      .set('Authorization', `Bearer ${t.key}`)
      .send(body)
      .expect(200);
  });

  it('asks for payment (402, not 401) when search gets no Authorization header', async () => {
    const res = await request(t.url).post('/v1/search').send(body).expect(402);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 402, type: '/problems/payment-required' });
  });

  it('checks authentication before the body', async () => {
    await request(t.url).post('/v1/search').send({ query: '' }).expect(402);
    await request(t.url).post('/api/research').send('{not json').expect(401);
    await request(t.url)
      .post('/v1/search')
      .set('Authorization', 'Bearer ff_live_nope')
      .send({ query: '' })
      .expect(401);
  });

  it('answers 401 for research without a key', async () => {
    const res = await request(t.url).post('/api/research').send(body).expect(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(res.body).toMatchObject({ status: 401, type: '/problems/missing-api-key' });
  });

  it('answers 401 for unknown keys and malformed headers', async () => {
    const unknown = 'ff_live_' + 'A'.repeat(43);
    for (const header of [
      `Bearer ${unknown}`,
      'Bearer',
      `Basic ${t.key}`,
      t.key,
      `Bearer ${t.key}x`,
    ]) {
      for (const path of ['/v1/search', '/api/research']) {
        const res = await request(t.url)
          .post(path)
          .set('Authorization', header)
          .send(body)
          .expect(401);
        expect(res.body).toMatchObject({ status: 401, type: '/problems/invalid-api-key' });
      }
    }
  });

  it('refuses a key as soon as it is revoked, and stores only its hash', async () => {
    const keys = t.app.get(ApiKeysService);
    const { key, prefix } = await keys.create('revoker@example.com', 'ci');
    expect(key).toMatch(/^ff_live_[A-Za-z0-9_-]{43}$/);
    await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key}`)
      .send(body)
      .expect(200);
    const [stored] = await keys.list('Revoker@Example.com');
    expect(stored.prefix).toBe(prefix);
    expect(stored.keyHash).not.toContain(key.slice(8));
    expect(stored.lastUsedAt).not.toBeNull();
    await keys.revoke(prefix);
    await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key}`)
      .send(body)
      .expect(401);
    await request(t.url)
      .post('/api/research')
      .set('Authorization', `Bearer ${key}`)
      .send(body)
      .expect(401);
  });
});
