import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { CATANIA } from '../support/corpus';

const TOKEN = 'admin-token-for-tests-0123456789';

describe('admin endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ facts: CATANIA, env: { FRESHFACTS_ADMIN_TOKEN: TOKEN } });
  });
  afterAll(() => t.close());

  const admin = () => ({
    get: (path: string) => request(t.url).get(path).set('Authorization', `Bearer ${TOKEN}`),
    post: (path: string, body: object) =>
      request(t.url).post(path).set('Authorization', `Bearer ${TOKEN}`).send(body),
    put: (path: string, body: object) =>
      request(t.url).put(path).set('Authorization', `Bearer ${TOKEN}`).send(body),
    delete: (path: string) => request(t.url).delete(path).set('Authorization', `Bearer ${TOKEN}`),
  });

  it('refuses callers without the admin token, and API keys are not admin tokens', async () => {
    await request(t.url).get('/admin/accounts').expect(401);
    await request(t.url).get('/admin/accounts').set('Authorization', `Bearer ${t.key}`).expect(401);
    const res = await request(t.url)
      .get('/admin/accounts')
      .set('Authorization', 'Bearer nope')
      .expect(401);
    expect(res.body).toMatchObject({ type: '/problems/invalid-admin-token', status: 401 });
  });

  it('walks an operator through an account: create, key, call, usage, plan, revoke', async () => {
    const created = await admin()
      .post('/admin/accounts', { email: 'Team@Example.com' })
      .expect(201);
    expect(created.body).toMatchObject({ email: 'team@example.com', plan: 'free' });
    await admin().post('/admin/accounts', { email: 'team@example.com' }).expect(409);

    const key = await admin()
      .post('/admin/accounts/team@example.com/keys', { name: 'ci' })
      .expect(201);
    expect(key.body.key).toMatch(/^ff_live_/);
    await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key.body.key}`)
      .send({ query: 'Catania coach' })
      .expect(200);

    const keys = await admin().get('/admin/accounts/team@example.com/keys').expect(200);
    expect(keys.body).toHaveLength(1);
    expect(keys.body[0]).toMatchObject({ name: 'ci', prefix: key.body.prefix, revoked_at: null });
    expect(JSON.stringify(keys.body)).not.toContain(key.body.key);

    const usage = await admin().get('/admin/accounts/team@example.com/usage').expect(200);
    expect(usage.body).toMatchObject({ plan: 'free', calls: 1, limit: 1000 });
    expect(usage.body.daily).toEqual([{ day: new Date().toISOString().slice(0, 10), calls: 1 }]);

    const paid = await admin()
      .put('/admin/accounts/team@example.com/plan', { plan: 'paid' })
      .expect(200);
    expect(paid.body.plan).toBe('paid');
    expect((await admin().get('/admin/accounts/team@example.com/usage')).body.limit).toBeNull();

    await admin().delete(`/admin/keys/${keys.body[0].id}`).expect(200);
    await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key.body.key}`)
      .send({ query: 'Catania coach' })
      .expect(401);
    const listed = await admin().get('/admin/accounts').expect(200);
    expect(listed.body.map((a: { email: string }) => a.email)).toContain('team@example.com');
  });

  it('answers bad input with problems, never 500', async () => {
    expect(
      (await admin().post('/admin/accounts', { email: 'not-an-email' }).expect(422)).body.errors[0]
        .loc,
    ).toEqual(['body', 'email']);
    await admin().post('/admin/accounts', { email: 'x@example.com', plan: 'gold' }).expect(422);
    await admin().put('/admin/accounts/x@example.com/plan', { plan: 'toString' }).expect(422);
    expect(
      (await admin().put('/admin/accounts/ghost@example.com/plan', { plan: 'paid' }).expect(404))
        .body.type,
    ).toBe('/problems/account-not-found');
    await admin().get('/admin/accounts/ghost@example.com/keys').expect(404);
    await admin().post('/admin/accounts/ghost@example.com/keys', {}).expect(404);
    await admin().get('/admin/accounts/not-an-email/usage').expect(422);
    expect((await admin().delete('/admin/keys/999999').expect(404)).body.type).toBe(
      '/problems/key-not-found',
    );
    await admin().delete('/admin/keys/abc').expect(404);
  });
});

describe('admin endpoints without a token in settings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('are disabled', async () => {
    const res = await request(t.url)
      .get('/admin/accounts')
      .set('Authorization', 'Bearer anything-at-all-here')
      .expect(403);
    expect(res.body).toMatchObject({ type: '/problems/admin-disabled', status: 403 });
  });
});
