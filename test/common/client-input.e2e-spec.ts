import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { CATANIA, fact } from '../support/corpus';
import { DashboardClient } from '../support/dashboard';
import { captureStdout } from '../support/stdout';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

// Forty dated answers to one question: enough to tell k clamped to 10 from 20 or 100.
const MAYORS = Array.from({ length: 40 }, (_, i) =>
  fact(`Who was the mayor of Springfield in ${1960 + i}?`, `Mayor ${i}`, `${1960 + i}-01-01`),
);

/**
 * Inputs that once answered 500 (issue 19): each now gets a precise 4xx problem, or a
 * 200 where the contract says the input is fine, and no error is logged.
 */
describe('client input that once crashed a request', () => {
  let t: TestApp;
  let logged: string[] = [];
  beforeAll(async () => {
    logged = captureStdout();
    t = await startApp({
      facts: [...CATANIA, ...MAYORS],
      env: {
        FRESHFACTS_ADMIN_TOKEN: ADMIN_TOKEN,
        FRESHFACTS_PAYMENT_SECRET: 'payment-secret-for-client-input-tests',
        FRESHFACTS_PAYMENT_METHODS: 'test',
        FRESHFACTS_PAYMENT_AMOUNT: '2',
        FRESHFACTS_PAYMENT_RECIPIENT: 'acct_freshfacts',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    jest.restoreAllMocks();
  });

  const post = (path: string, text: string, key: string | undefined = t.key) => {
    const req = request(t.url).post(path).set('Content-Type', 'application/json');
    return (key ? req.set('Authorization', `Bearer ${key}`) : req).send(text);
  };
  const admin = (method: 'get' | 'post' | 'put' | 'delete', path: string) =>
    request(t.url)[method](path).set('Authorization', `Bearer ${ADMIN_TOKEN}`);

  function expectInvalid(res: request.Response, loc: string, msg: RegExp): void {
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.type).toBe('/problems/invalid-request');
    const found = (res.body.errors as { loc: (string | number)[]; msg: string }[]).find(
      (e) => e.loc.join('.') === loc,
    );
    expect(found?.msg).toMatch(msg);
  }

  describe('a NUL character', () => {
    for (const path of ['/v1/search', '/api/research']) {
      it(`in the query of ${path} is refused with 422 naming the field`, async () => {
        const res = await post(path, '{"query": "Catania\\u0000 coach"}');
        expectInvalid(res, 'body.query', /NUL/);
      });
    }

    it('in model_id is refused too, and in an unknown field is ignored like the field', async () => {
      expectInvalid(
        await post('/v1/search', '{"query": "Catania coach", "model_id": "openai/\\u0000"}'),
        'body.model_id',
        /NUL/,
      );
      const res = await post('/api/research', '{"query": "Catania coach", "note": "\\u0000"}');
      expect(res.status).toBe(200);
      expect(res.body.research_guidance.length).toBeGreaterThan(0);
    });

    it('in an admin path’s email or key id answers 422, in a key name too', async () => {
      const nul = encodeURIComponent('tester\u0000@example.com');
      expectInvalid(await admin('get', `/admin/accounts/${nul}/usage`), 'path.email', /NUL/);
      expectInvalid(await admin('get', `/admin/accounts/${nul}/keys`), 'path.email', /NUL/);
      expectInvalid(
        await admin('put', `/admin/accounts/${nul}/plan`).send({ plan: 'paid' }),
        'path.email',
        /NUL/,
      );
      expectInvalid(await admin('delete', '/admin/keys/1%00'), 'path.id', /NUL/);
      expectInvalid(
        await admin('post', '/admin/accounts/tester@example.com/keys').send({ name: 'ci\u0000' }),
        'body.name',
        /NUL/,
      );
      const keys = await admin('get', '/admin/accounts/tester@example.com/keys').expect(200);
      expect(keys.body).toHaveLength(1);
    });

    it('in a dashboard email or key name shows the form again with a message', async () => {
      const visitor = new DashboardClient(t.url);
      const signUp = await visitor.submit(422, '/dashboard/signup', '/dashboard/signup', {
        email: 'nul\u0000@example.com',
        password: 'a long enough password',
      });
      expect(signUp.text).toContain('<form');
      expect(signUp.text).toMatch(/not an email address/);
      const logIn = await visitor.logIn(401, 'nul\u0000@example.com');
      expect(logIn.text).toContain('<form');

      const owner = await new DashboardClient(t.url).signUp('owner@example.com');
      const named = await owner.submit(422, '/dashboard/keys', '/dashboard/keys', {
        name: 'laptop\u0000',
      });
      expect(named.text).toContain('<form');
      expect(named.text).toMatch(/control characters/);
    });
  });

  describe('half a surrogate pair escaped in JSON (found by the property test)', () => {
    it('is read as U+FFFD, so an admin email with it is refused as an address', async () => {
      const res = await admin('post', '/admin/accounts')
        .set('Content-Type', 'application/json')
        .send('{"email": "ann\\ud800@example.com"}');
      expectInvalid(res, 'body.email', /email/);
    });

    it('and a query with it is answered', async () => {
      const res = await post('/v1/search', '{"query": "Catania coach \\udc00"}').expect(200);
      expect(res.body.results.length).toBeGreaterThan(0);
    });
  });

  it('null for an optional field counts as absent (found by the property test)', async () => {
    const key = await admin('post', '/admin/accounts/tester@example.com/keys')
      .send({ name: null })
      .expect(201);
    expect(key.body.key).toMatch(/^ff_live_/);
    const account = await admin('post', '/admin/accounts')
      .send({ email: 'nullplan@example.com', plan: null })
      .expect(201);
    expect(account.body.plan).toBe('free');
  });

  describe('a date outside 0001-01-01 … 9999-12-31 in UTC', () => {
    const outside = ['0000-01-01', '0001-01-01T00:00:00+14:00', '9999-12-31T23:00:00-12:00'];
    for (const field of ['true_by_min', 'true_by_max']) {
      for (const value of outside) {
        it(`as ${field} ${value} answers 422 naming the field and the range`, async () => {
          const res = await post(
            '/v1/search',
            JSON.stringify({ query: 'Catania coach', [field]: value }),
          );
          expectInvalid(res, `body.${field}`, /0001-01-01 and 9999-12-31/);
          expect(res.body.detail).toContain(field);
        });
      }
    }

    it('is accepted right at either end', async () => {
      const res = await post(
        '/v1/search',
        JSON.stringify({
          query: 'Catania coach',
          true_by_min: '0001-01-01T00:00:00Z',
          true_by_max: '9999-12-31T23:59:59.999Z',
        }),
      ).expect(200);
      expect(res.body.results.length).toBeGreaterThan(0);
    });
  });

  describe('a body whose unknown field nests 2,000 arrays deep (4 KB)', () => {
    const deep = `{"query": "Catania coach", "x": ${'['.repeat(2000)}${']'.repeat(2000)}}`;

    for (const path of ['/v1/search', '/api/research']) {
      it(`answers 422 on ${path} with a key`, async () => {
        expectInvalid(await post(path, deep), 'body', /nest deeper than 64 levels/);
      });
    }

    it('answers the 402 challenge without a key, even 30,000 deep (60 KB)', async () => {
      // Deep enough to overflow the stack while binding the challenge to the body.
      const deeper = `{"query": "Catania coach", "x": ${'['.repeat(30000)}${']'.repeat(30000)}}`;
      const res = await post('/v1/search', deeper, '').expect(402);
      expect(res.headers['www-authenticate']).toMatch(/^Payment id="/);
    });

    it('is fine 64 levels deep', async () => {
      const fine = `{"query": "Catania coach", "x": ${'['.repeat(63)}${']'.repeat(63)}}`;
      await post('/v1/search', fine).expect(200);
    });
  });

  describe('a number beyond double range', () => {
    it('without a key gets the 402 challenge', async () => {
      const res = await post('/v1/search', '{"query": "Catania coach", "k": 1e309}', '').expect(
        402,
      );
      expect(res.headers['www-authenticate']).toMatch(/^Payment id="/);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    });

    it('as k, an integer literal of 400 digits, is clamped to 100 (or to 10 below zero)', async () => {
      const digits = '9'.repeat(400);
      const query = '"query": "Who was the mayor of Springfield?", "timeline": false';
      const many = await post('/v1/search', `{${query}, "k": ${digits}}`).expect(200);
      expect(many.body.results).toHaveLength(MAYORS.length);
      const few = await post('/v1/search', `{${query}, "k": -${digits}}`).expect(200);
      expect(few.body.results).toHaveLength(10);
      const research = await post('/api/research', `{${query}, "k": 1e309}`).expect(200);
      expect(research.body.research_guidance).toHaveLength(MAYORS.length);
    });
  });

  it('logged no error for any of them', () => {
    // The app logs JSON lines at error level here (pino's 50); a 500 would log one.
    expect(logged.join('')).not.toMatch(/"level":50/);
    expect(logged.join('')).not.toMatch(/internal-error|RangeError|out of range/);
  });
});
