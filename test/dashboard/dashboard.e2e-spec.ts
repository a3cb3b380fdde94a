import request from 'supertest';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { LOGIN_ATTEMPTS } from '../../src/auth/login-throttle.repository';
import { payingFetch, testPayer } from '../../src/client';
import { startApp, TestApp } from '../support/app';
import { CATANIA } from '../support/corpus';
import { csrfOf, DashboardClient, PASSWORD } from '../support/dashboard';

const search = (t: TestApp, key: string) =>
  request(t.url)
    .post('/v1/search')
    .set('Authorization', `Bearer ${key}`)
    .send({ query: 'Catania' });

describe('the account dashboard', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ facts: CATANIA });
  });
  afterAll(() => t.close());

  describe('signing up', () => {
    it('opens a session in an HttpOnly, SameSite=Lax cookie and shows the keys page', async () => {
      const visitor = new DashboardClient(t.url);
      const res = await visitor.submit(303, '/dashboard/signup', '/dashboard/signup', {
        email: 'Ada@Example.com',
        password: PASSWORD,
      });
      expect(res.headers.location).toBe('/dashboard/keys');
      const cookie = res.headers['set-cookie'] as unknown as string[];
      const session = cookie.find((c) => c.startsWith('ff_session='))!;
      expect(session).toMatch(/HttpOnly/);
      expect(session).toMatch(/SameSite=Lax/);
      expect(session).toMatch(/Path=\/dashboard/);
      expect(session).not.toMatch(/Secure/); // plain HTTP here; see the HTTPS story below
      const keys = await visitor.agent.get('/dashboard/keys').expect(200);
      expect(keys.text).toContain('ada@example.com');
      expect(keys.text).toContain('No keys yet');
      expect(keys.headers['cache-control']).toBe('no-store');
      expect(keys.headers['content-security-policy']).toContain("script-src 'self'");
    });

    it('refuses passwords under 12 characters, showing the form again', async () => {
      const res = await new DashboardClient(t.url).submit(
        422,
        '/dashboard/signup',
        '/dashboard/signup',
        {
          email: 'short@example.com',
          password: 'elevenchars',
        },
      );
      expect(res.text).toContain('Use at least 12 characters.');
      expect(res.text).toContain('value="short@example.com"');
      await new DashboardClient(t.url).logIn(401, 'short@example.com', 'elevenchars');
    });

    it('refuses a malformed address and an address that already has an account', async () => {
      const bad = await new DashboardClient(t.url).submit(
        422,
        '/dashboard/signup',
        '/dashboard/signup',
        { email: 'nobody', password: PASSWORD },
      );
      expect(bad.text).toContain('not an email address');
      await new DashboardClient(t.url).signUp('twice@example.com');
      const again = await new DashboardClient(t.url).submit(
        409,
        '/dashboard/signup',
        '/dashboard/signup',
        {
          email: 'twice@example.com',
          password: 'another long password',
        },
      );
      expect(again.text).toContain('log in instead');
    });

    it('cannot claim an account an operator made on the command line', async () => {
      const { key } = await t.app.get(ApiKeysService).create('operator-made@example.com');
      await new DashboardClient(t.url).submit(409, '/dashboard/signup', '/dashboard/signup', {
        email: 'operator-made@example.com',
        password: PASSWORD,
      });
      await new DashboardClient(t.url).logIn(401, 'operator-made@example.com');
      await search(t, key).expect(200);
    });
  });

  describe('logging in and out', () => {
    it('sends a visitor without a session to the login page', async () => {
      for (const page of [
        '/dashboard',
        '/dashboard/keys',
        '/dashboard/usage',
        '/dashboard/billing',
      ]) {
        const res = await request(t.url).get(page).expect(303);
        expect(res.headers.location).toMatch(/^\/dashboard(\/login|\/keys)$/);
      }
      await request(t.url)
        .get('/dashboard/keys')
        .expect(303)
        .expect('Location', '/dashboard/login');
      await request(t.url)
        .get('/dashboard/keys')
        .set('Cookie', 'ff_session=forged-or-expired')
        .expect(303)
        .expect('Location', '/dashboard/login');
    });

    it('logs in with the right password only, and logging out ends the session', async () => {
      await new DashboardClient(t.url).signUp('grace@example.com');
      const wrong = await new DashboardClient(t.url).logIn(
        401,
        'grace@example.com',
        'not the password at all',
      );
      expect(wrong.text).toContain('Wrong email or password');
      await new DashboardClient(t.url).logIn(401, 'nobody-here@example.com');

      const browser = new DashboardClient(t.url);
      const loggedIn = await browser.logIn(303, 'GRACE@example.com');
      expect(loggedIn.headers.location).toBe('/dashboard/keys');
      const keys = await browser.agent.get('/dashboard/keys').expect(200);
      const cookie = browser.agent.jar.getCookie('ff_session', {
        domain: '127.0.0.1',
        path: '/dashboard',
        secure: false,
        script: false,
      })!;
      await browser.agent
        .post('/dashboard/logout')
        .type('form')
        .send({ _csrf: csrfOf(keys.text) })
        .expect(303)
        .expect('Location', '/dashboard/login');
      // The old cookie, replayed, opens nothing: the session is gone from the store.
      await request(t.url)
        .get('/dashboard/keys')
        .set('Cookie', `ff_session=${cookie.value}`)
        .expect(303)
        .expect('Location', '/dashboard/login');
    });

    it(`throttles an address after ${LOGIN_ATTEMPTS} attempts, even with the right password`, async () => {
      await new DashboardClient(t.url).signUp('linus@example.com');
      // A success forgets earlier failures.
      for (let i = 0; i < LOGIN_ATTEMPTS - 1; i++) {
        await new DashboardClient(t.url).logIn(401, 'linus@example.com', `guess number ${i}`);
      }
      await new DashboardClient(t.url).logIn(303, 'linus@example.com');
      for (let i = 0; i < LOGIN_ATTEMPTS; i++) {
        await new DashboardClient(t.url).logIn(401, 'linus@example.com', `guess number ${i}`);
      }
      const locked = await new DashboardClient(t.url).logIn(429, 'linus@example.com');
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800);
      expect(locked.text).toContain('Too many login attempts');
      // Other addresses are not affected.
      await new DashboardClient(t.url).signUp('margaret@example.com');
      await new DashboardClient(t.url).logIn(303, 'margaret@example.com');
    });
  });

  describe('CSRF', () => {
    it('refuses every form post without the token, or with another session’s token', async () => {
      const mallory = await new DashboardClient(t.url).signUp('mallory@example.com');
      const malloryToken = csrfOf((await mallory.agent.get('/dashboard/keys')).text);
      const victim = await new DashboardClient(t.url).signUp('victim@example.com');
      const before = await t.app.get(ApiKeysService).list('victim@example.com');
      for (const body of [{ name: 'planted' }, { name: 'planted', _csrf: malloryToken }]) {
        const res = await victim.agent.post('/dashboard/keys').type('form').send(body).expect(403);
        expect(res.text).toContain('Form expired');
      }
      await victim.agent.post('/dashboard/logout').type('form').send({}).expect(403);
      await request(t.url)
        .post('/dashboard/login')
        .type('form')
        .send({ email: 'victim@example.com', password: PASSWORD })
        .expect(403);
      expect(await t.app.get(ApiKeysService).list('victim@example.com')).toEqual(before);
      await victim.agent.get('/dashboard/keys').expect(200); // still signed in
    });
  });

  describe('API keys', () => {
    it('shows a new key once, lists it by prefix, and the key calls the API', async () => {
      const owner = await new DashboardClient(t.url).signUp('keys@example.com');
      const key = await owner.createKey('production agent');
      expect(key).toMatch(/^ff_live_[A-Za-z0-9_-]{43}$/);
      const listed = await owner.agent.get('/dashboard/keys').expect(200);
      expect(listed.text).not.toContain(key);
      expect(listed.text).toContain(`${key.slice(0, 16)}…`);
      expect(listed.text).toContain('production agent');
      expect(listed.text).toMatch(/<td>Never<\/td>/);

      await search(t, key).expect(200);
      const used = await owner.agent.get('/dashboard/keys').expect(200);
      expect(used.text).not.toMatch(/<td>Never<\/td>/);
      expect(used.text).toMatch(/<td>\w{3} \d{1,2}, \d{4}, \d{2}:\d{2} UTC<\/td>/);
    });

    it('says how many facts the service holds and the date they reach', async () => {
      const owner = await new DashboardClient(t.url).signUp('corpus@example.com');
      const page = await owner.agent.get('/dashboard/keys').expect(200);
      // CATANIA: three facts, the newest true by 2011-01-01.
      expect(page.text).toContain(
        'holds 3 facts, <strong>facts up to <time datetime="2011-01-01">Jan 1, 2011</time></strong>',
      );
    });

    it('asks for a name of at most 100 characters', async () => {
      const owner = await new DashboardClient(t.url).signUp('names@example.com');
      const empty = await owner.submit(422, '/dashboard/keys', '/dashboard/keys', { name: '  ' });
      expect(empty.text).toContain('Give the key a name');
      await owner.submit(422, '/dashboard/keys', '/dashboard/keys', { name: 'x'.repeat(101) });
      expect(await t.app.get(ApiKeysService).list('names@example.com')).toHaveLength(0);
    });

    it('revokes a key, after which the API answers 401', async () => {
      const owner = await new DashboardClient(t.url).signUp('revoker@example.com');
      const key = await owner.createKey('laptop');
      const [{ id }] = await t.app.get(ApiKeysService).list('revoker@example.com');
      await search(t, key).expect(200);
      await owner.submit(303, '/dashboard/keys', `/dashboard/keys/${id}/revoke`);
      const page = await owner.agent.get('/dashboard/keys').expect(200);
      expect(page.text).toMatch(/Revoked \w{3} \d{1,2}, \d{4}/);
      await search(t, key).expect(401);
    });

    it('cannot revoke another account’s key, nor tell it from a missing one', async () => {
      const alice = await new DashboardClient(t.url).signUp('alice@example.com');
      const aliceKey = await alice.createKey('alice prod');
      const [{ id }] = await t.app.get(ApiKeysService).list('alice@example.com');
      const bob = await new DashboardClient(t.url).signUp('bob@example.com');
      const refused = await bob.submit(404, '/dashboard/keys', `/dashboard/keys/${id}/revoke`);
      expect(refused.text).toContain(`no key with id ${id}`);
      await bob.submit(404, '/dashboard/keys', '/dashboard/keys/999999999/revoke');
      await bob.submit(404, '/dashboard/keys', '/dashboard/keys/not-a-number/revoke');
      expect((await bob.agent.get('/dashboard/keys')).text).not.toContain('alice prod');
      await search(t, aliceKey).expect(200);
    });
  });

  describe('usage and billing', () => {
    it('counts this month’s calls against the limit and charts them by day', async () => {
      const owner = await new DashboardClient(t.url).signUp('usage@example.com');
      const key = await owner.createKey('usage');
      for (let i = 0; i < 3; i++) await search(t, key).expect(200);
      await search(t, key).send({ query: '' }).expect(422); // refused: not counted
      const page = await owner.agent.get('/dashboard/usage').expect(200);
      expect(await owner.callsThisMonth()).toBe('3');
      expect(page.text).toContain('of 1,000 calls this month');
      expect(page.text).toContain('<strong>997</strong> left');
      const today = new Date().toISOString().slice(0, 10);
      expect(page.text).toContain(`data-day="${today}" data-calls="3"`);
      expect(page.text.match(/<rect class="bar"/g)).toHaveLength(30);
    });

    it('tells a self-hosted account how the operator upgrades it', async () => {
      const owner = await new DashboardClient(t.url).signUp('selfhosted@example.com');
      const page = await owner.agent.get('/dashboard/billing').expect(200);
      expect(page.text).toContain('freshfacts accounts set-plan selfhosted@example.com paid');
      expect(page.text).not.toContain('Upgrade with Stripe');
      const refused = await owner.submit(404, '/dashboard/billing', '/dashboard/billing/checkout');
      expect(refused.text).toContain('takes no payments');
    });
  });
});

describe('the dashboard behind HTTPS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ env: { FRESHFACTS_PUBLIC_URL: 'https://facts.example.com/' } });
  });
  afterAll(() => t.close());

  it('marks its cookies Secure and asks browsers to stay on HTTPS', async () => {
    const visitor = new DashboardClient(t.url);
    const page = await visitor.agent.get('/dashboard/signup').expect(200);
    expect(page.headers['set-cookie']?.[0]).toMatch(/^ff_csrf=.*; Secure/);
    expect(page.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    // The cookie jar holds Secure cookies back over plain HTTP, as a browser would;
    // the form goes with the page's token and the cookie set by hand.
    const cookie = /ff_csrf=([^;]+)/.exec(page.headers['set-cookie']?.[0] ?? '')![1];
    const res = await request(t.url)
      .post('/dashboard/signup')
      .set('Cookie', `ff_csrf=${cookie}`)
      .type('form')
      .send({ _csrf: csrfOf(page.text), email: 'tls@example.com', password: PASSWORD })
      .expect(303);
    const session = (res.headers['set-cookie'] as unknown as string[]).find((c) =>
      c.startsWith('ff_session='),
    );
    expect(session).toMatch(/; Secure/);
  });
});

const PAYMENT_SECRET = 'payment-secret-that-must-never-be-logged';

describe('the service’s logs at debug level', () => {
  let t: TestApp;
  let output: string[];
  beforeAll(async () => {
    output = [];
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
      jest.spyOn(stream, 'write').mockImplementation((chunk: unknown, ...rest: unknown[]) => {
        output.push(String(chunk));
        return write(chunk, ...rest);
      });
    }
    t = await startApp({
      env: {
        FRESHFACTS_LOG_LEVEL: 'debug',
        FRESHFACTS_PAYMENT_SECRET: PAYMENT_SECRET,
        FRESHFACTS_PAYMENT_METHODS: 'test',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    jest.restoreAllMocks();
  });

  it('never writes a password, a key, a payment credential or its secret to its logs', async () => {
    await new DashboardClient(t.url).signUp('quiet@example.com');
    await new DashboardClient(t.url).logIn(401, 'quiet@example.com', 'a wrong but long password');
    // The capture works: each request is one JSON line with its id.
    expect(output.join('')).toMatch(
      /"req":\{"id":"[0-9a-f-]{36}","method":"POST","path":"\/dashboard\/login"\},"res":\{"status":401\}/,
    );
    const owner = new DashboardClient(t.url);
    await owner.logIn(303, 'quiet@example.com');
    const key = await owner.createKey('secret');
    await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key}`)
      .send({ query: 'x' })
      .expect(200);
    const paying = await payingFetch([testPayer()]);
    let credential = '';
    const paid = await paying(`${t.url}/v1/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'x' }),
    });
    expect(paid.status).toBe(200);
    const refused = await request(t.url)
      .post('/v1/search')
      .set('Payment-Authorization', (credential = 'Payment eyJicm9rZW4iOnRydWV9'))
      .send({ query: 'x' })
      .expect(402);
    expect(refused.body.type).toMatch(/malformed-credential$/);
    const logged = output.join('');
    for (const secret of [key, PASSWORD, 'a wrong but long password', PAYMENT_SECRET, credential]) {
      expect(logged).not.toContain(secret);
    }
  });
});
