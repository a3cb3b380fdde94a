import { createHash, createHmac } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { Clock } from '../../src/billing/clock';
import { MppxCore, payingFetch, stripePayer, testPayer } from '../../src/client';
import { importEsm } from '../../src/common/esm';
import { SearchService } from '../../src/search/search.service';
import { startApp, TestApp } from '../support/app';
import { CATANIA } from '../support/corpus';

const SECRET = 'a-payment-secret-of-at-least-32-bytes!';
const OLD_SECRET = 'the-previous-secret-still-honoured-for-a-while';
const QUESTION = { query: 'Who coached Calcio Catania?' };

// Everything below about the wire format is written from the draft's text
// (draft-httpauth-payment-02 and the charge intent), not from src/, so that the
// server is checked against the protocol rather than against itself.

/** The auth-params of one `Payment` challenge. */
function parseChallenge(header: string): Record<string, string> {
  expect(header).toMatch(/^Payment /);
  const params: Record<string, string> = {};
  for (const [, name, value] of header.matchAll(/([a-z]+)="([^"]*)"/g)) params[name] = value;
  return params;
}

const b64json = (value: string): unknown =>
  JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));

/** JCS for the flat objects used here: keys sorted, JSON.stringify's escaping. */
function jcs(value: Record<string, unknown>): string {
  return `{${Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${JSON.stringify(value[key])}`)
    .join(',')}}`;
}

/** The credential: base64url of {"challenge": <the echo>, "payload": …} in Payment-Authorization. */
function credentialFor(
  challenge: Record<string, string>,
  payload: Record<string, unknown>,
): string {
  const json = JSON.stringify({ challenge, payload, source: 'did:example:agent' });
  return `Payment ${Buffer.from(json).toString('base64url')}`;
}

/** The draft's HMAC id: realm|method|intent|request|expires|digest|opaque[|header]. */
function draftId(secret: string, c: Record<string, string>): string {
  const slots = [
    c.realm,
    c.method,
    c.intent,
    c.request,
    c.expires ?? '',
    c.digest ?? '',
    c.opaque ?? '',
  ];
  if (c.header !== undefined) slots.push(c.header);
  return createHmac('sha256', secret).update(slots.join('|')).digest('base64url');
}

const testPayment = (challenge: Record<string, string>) => {
  const price = b64json(challenge.request) as { amount: string; currency: string };
  return credentialFor(challenge, { amount: price.amount, currency: price.currency });
};

describe('pay per call on search (the Payment scheme, test method)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({
      facts: CATANIA,
      env: {
        FRESHFACTS_PAYMENT_SECRET: SECRET,
        FRESHFACTS_PAYMENT_OLD_SECRETS: OLD_SECRET,
        FRESHFACTS_PAYMENT_METHODS: 'test',
        FRESHFACTS_PAYMENT_AMOUNT: '2',
        FRESHFACTS_PAYMENT_RECIPIENT: 'acct_freshfacts',
        FRESHFACTS_PAYMENT_TTL_SECONDS: '120',
      },
    });
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  const search = (body: object = QUESTION) => request(t.url).post('/v1/search').send(body);
  const challengeFor = async (body: object = QUESTION) =>
    parseChallenge((await search(body).expect(402)).headers['www-authenticate']);

  it('answers a call without a key with 402 and a complete challenge', async () => {
    const res = await search().expect(402);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({
      type: 'https://paymentauth.org/problems/payment-required',
      status: 402,
    });
    const c = parseChallenge(res.headers['www-authenticate']);
    expect(c).toMatchObject({
      realm: '127.0.0.1',
      method: 'test',
      intent: 'charge',
      header: 'Payment-Authorization',
    });
    expect(c.request).toMatch(/^[A-Za-z0-9_-]+$/); // base64url, no padding
    expect(Buffer.from(c.request, 'base64url').toString()).toBe(
      '{"amount":"2","currency":"usd","recipient":"acct_freshfacts"}', // JCS: sorted keys
    );
    const expires = Date.parse(c.expires);
    expect(expires - Date.now()).toBeGreaterThan(110_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(120_000);
    const bodyDigest = createHash('sha256').update(jcs(QUESTION)).digest('base64url');
    expect(b64json(c.opaque)).toEqual({ route: 'POST /v1/search', body: `sha-256=${bodyDigest}` });
    expect(c.id).toBe(draftId(SECRET, c));
  });

  it('answers a paid call with the results, a receipt and Cache-Control: private', async () => {
    const c = await challengeFor();
    const res = await search().set('Payment-Authorization', testPayment(c)).expect(200);
    expect(res.body.results[0].answer).toBeDefined();
    expect(res.headers['cache-control']).toBe('private');
    expect(b64json(res.headers['payment-receipt'])).toMatchObject({
      status: 'success',
      method: 'test',
      reference: expect.stringMatching(/^test_/),
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('spends a credential once: a second use gets invalid-challenge and a fresh challenge', async () => {
    const credential = testPayment(await challengeFor());
    await search().set('Payment-Authorization', credential).expect(200);
    const again = await search().set('Payment-Authorization', credential).expect(402);
    expect(again.body.type).toBe('https://paymentauth.org/problems/invalid-challenge');
    expect(again.body.detail).toContain('used already');
    expect(again.headers['payment-receipt']).toBeUndefined();
    const fresh = parseChallenge(again.headers['www-authenticate']);
    expect(fresh.id).not.toBe(
      JSON.parse(Buffer.from(credential.slice(8), 'base64url').toString()).challenge.id,
    );
    await search().set('Payment-Authorization', testPayment(fresh)).expect(200);
  });

  it('settles 20 concurrent copies of one credential exactly once', async () => {
    const credential = testPayment(await challengeFor());
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${t.url}/v1/search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'payment-authorization': credential },
          body: JSON.stringify(QUESTION),
        }).then(async (res) => (await res.arrayBuffer(), res.status)),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(19);
  });

  it('does not let a payment for one question buy another', async () => {
    const credential = testPayment(await challengeFor(QUESTION));
    const other = await search({ query: 'Who won the 2026 World Cup?' })
      .set('Payment-Authorization', credential)
      .expect(402);
    expect(other.body.type).toBe('https://paymentauth.org/problems/invalid-challenge');
    expect(other.body.detail).toContain('another request');
    // Same question, other options: also another request.
    await search({ ...QUESTION, k: 50 })
      .set('Payment-Authorization', credential)
      .expect(402);
    await search(QUESTION).set('Payment-Authorization', credential).expect(200);
  });

  it('compares bodies canonically: key order and spacing do not matter', async () => {
    const credential = testPayment(await challengeFor({ query: QUESTION.query, k: 20 }));
    await request(t.url)
      .post('/v1/search')
      .set('content-type', 'application/json')
      .set('Payment-Authorization', credential)
      .send(`{ "k": 20,\n  "query": ${JSON.stringify(QUESTION.query)} }`)
      .expect(200);
  });

  it('refuses an expired challenge with payment-expired', async () => {
    const credential = testPayment(await challengeFor());
    const clock = t.app.get(Clock);
    jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + 121_000));
    const res = await search().set('Payment-Authorization', credential).expect(402);
    expect(res.body.type).toBe('https://paymentauth.org/problems/payment-expired');
    expect(res.headers['www-authenticate']).toMatch(/^Payment id=/);
  });

  it('refuses a tampered challenge, a wrong amount and a malformed credential', async () => {
    const c = await challengeFor();
    const cheaper = Buffer.from(
      '{"amount":"1","currency":"usd","recipient":"acct_freshfacts"}',
    ).toString('base64url');
    const tampered = await search()
      .set(
        'Payment-Authorization',
        credentialFor({ ...c, request: cheaper }, { amount: '1', currency: 'usd' }),
      )
      .expect(402);
    expect(tampered.body.type).toBe('https://paymentauth.org/problems/invalid-challenge');

    const underpaid = await search()
      .set('Payment-Authorization', credentialFor(c, { amount: '1', currency: 'usd' }))
      .expect(402);
    expect(underpaid.body.type).toBe('https://paymentauth.org/problems/verification-failed');
    expect(underpaid.body.detail).toContain('this search costs 2 usd');

    for (const bad of [
      'Payment !!!',
      'Payment eyJub3QiOiJqc29uIn0',
      'Bearer x',
      `Payment ${Buffer.from('{"challenge":{},"payload":{}}').toString('base64url')}`,
    ]) {
      const res = await search().set('Payment-Authorization', bad).expect(402);
      expect(res.body.type).toBe('https://paymentauth.org/problems/malformed-credential');
      expect(res.headers['www-authenticate']).toMatch(/^Payment id=/);
    }
  });

  it('accepts challenges signed with a previous secret, and a credential built from the draft alone', async () => {
    // A challenge as another implementation of the draft would issue it, under the old secret.
    const c: Record<string, string> = {
      realm: '127.0.0.1',
      method: 'test',
      intent: 'charge',
      request: Buffer.from(
        jcs({ amount: '2', currency: 'usd', recipient: 'acct_freshfacts' }),
      ).toString('base64url'),
      expires: new Date(Date.now() + 60_000).toISOString(),
      opaque: Buffer.from(
        jcs({
          body: `sha-256=${createHash('sha256').update(jcs(QUESTION)).digest('base64url')}`,
          route: 'POST /v1/search',
        }),
      ).toString('base64url'),
      header: 'Payment-Authorization',
    };
    c.id = draftId(OLD_SECRET, c);
    await search().set('Payment-Authorization', testPayment(c)).expect(200);
    c.id = draftId('a-secret-this-server-never-had-0123456789', c);
    const forged = await search().set('Payment-Authorization', testPayment(c)).expect(402);
    expect(forged.body.type).toBe('https://paymentauth.org/problems/invalid-challenge');
  });

  it('charges nothing for a call it cannot answer: the credential stays good', async () => {
    const c = await challengeFor({ query: '' });
    await search({ query: '' }).set('Payment-Authorization', testPayment(c)).expect(422);

    const credential = testPayment(await challengeFor());
    jest.spyOn(t.app.get(SearchService), 'find').mockRejectedValueOnce(new Error('disk on fire'));
    await search().set('Payment-Authorization', credential).expect(500);
    await search().set('Payment-Authorization', credential).expect(200);
  });

  it('keeps keys first: with Authorization present, the key decides', async () => {
    await search().set('Authorization', `Bearer ${t.key}`).expect(200);
    const res = await search().set('Authorization', 'Bearer ff_live_wrong').expect(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('never offers a challenge on research', async () => {
    const res = await request(t.url).post('/api/research').send(QUESTION).expect(401);
    expect(res.headers['www-authenticate']).not.toMatch(/Payment/);
  });

  it('completes the flow with an unmodified mppx client', async () => {
    const core = (await importEsm('mppx')) as MppxCore;
    const client = (await importEsm('mppx/client')) as {
      Mppx: { create(o: unknown): { fetch: typeof fetch } };
    };
    const method = core.Method.from({
      name: 'test',
      intent: 'charge',
      schema: {
        credential: {
          payload: core.z.object({ amount: core.z.string(), currency: core.z.string() }),
        },
        request: core.z.object({
          amount: core.z.string(),
          currency: core.z.string(),
          recipient: core.z.string(),
        }),
      },
    });
    const mppx = client.Mppx.create({
      polyfill: false,
      methods: [
        core.Method.toClient(method, {
          createCredential: ({ challenge }) =>
            core.Credential.serialize({ challenge, payload: { amount: '2', currency: 'usd' } }),
        }),
      ],
    });
    const res = await mppx.fetch(`${t.url}/v1/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(QUESTION),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('payment-receipt')).toBeTruthy();
  });

  it('pays in a few lines with the package’s client helper', async () => {
    const paying = await payingFetch([testPayer()]);
    const res = await paying(`${t.url}/v1/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(QUESTION),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: unknown[] };
    expect(body.results.length).toBeGreaterThan(0);
  });
});

describe('search without a key on a server that takes no payments', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('answers 402 without a challenge', async () => {
    const res = await request(t.url).post('/v1/search').send(QUESTION).expect(402);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.body.type).toBe('/problems/payment-required');
  });
});

describe('pay per call with Stripe shared payment tokens', () => {
  // A stand-in for Stripe's API, only for the PaymentIntent that settles a token:
  // the real API cannot be reached from here. It answers as Stripe documents,
  // including idempotent replays and a declined card.
  const intents: { form: URLSearchParams; idempotencyKey?: string }[] = [];
  let standIn: Server;
  let t: TestApp;

  beforeAll(async () => {
    const seen = new Map<string, string>();
    standIn = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        const key = req.headers['idempotency-key'] as string | undefined;
        intents.push({ form, idempotencyKey: key });
        res.setHeader('content-type', 'application/json');
        if (req.url !== '/v1/payment_intents') {
          res.statusCode = 404;
          return res.end('{"error":{"type":"invalid_request_error","message":"unknown"}}');
        }
        if (form.get('shared_payment_granted_token') === 'spt_declined') {
          res.statusCode = 402;
          return res.end(
            '{"error":{"type":"card_error","code":"card_declined","message":"Your card was declined."}}',
          );
        }
        const replayed = key !== undefined && seen.has(key);
        const id = seen.get(key ?? '') ?? `pi_test_${seen.size + 1}`;
        if (key) seen.set(key, id);
        if (replayed) res.setHeader('idempotent-replayed', 'true');
        res.end(JSON.stringify({ id, object: 'payment_intent', status: 'succeeded' }));
      });
    });
    await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
    const port = (standIn.address() as AddressInfo).port;
    t = await startApp({
      facts: CATANIA,
      env: {
        FRESHFACTS_STRIPE_SECRET_KEY: 'sk_test_freshfacts',
        FRESHFACTS_STRIPE_WEBHOOK_SECRET: 'whsec_test',
        FRESHFACTS_STRIPE_PRICE_ID: 'price_test',
        FRESHFACTS_STRIPE_API_URL: `http://127.0.0.1:${port}`,
        FRESHFACTS_PAYMENT_SECRET: SECRET,
        FRESHFACTS_PAYMENT_METHODS: 'stripe',
        FRESHFACTS_PAYMENT_STRIPE_NETWORK_ID: 'profile_test_freshfacts',
        FRESHFACTS_PAYMENT_AMOUNT: '50',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => standIn.close(resolve));
  });

  const paidSearch = async (token: string) => {
    const paying = await payingFetch([
      stripePayer({ paymentMethod: 'pm_card_visa', createToken: () => Promise.resolve(token) }),
    ]);
    return paying(`${t.url}/v1/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(QUESTION),
    });
  };

  it('offers a Stripe challenge and settles the token as one confirmed PaymentIntent', async () => {
    const challenge = await request(t.url).post('/v1/search').send(QUESTION).expect(402);
    const c = parseChallenge(challenge.headers['www-authenticate']);
    expect(c.method).toBe('stripe');
    expect(b64json(c.request)).toEqual({
      amount: '50',
      currency: 'usd',
      recipient: 'freshfacts',
      methodDetails: { networkId: 'profile_test_freshfacts', paymentMethodTypes: ['card'] },
    });

    const res = await paidSearch('spt_test_good');
    expect(res.status).toBe(200);
    expect(b64json(res.headers.get('payment-receipt')!)).toMatchObject({
      status: 'success',
      method: 'stripe',
      reference: 'pi_test_1',
    });
    const [intent] = intents;
    expect(Object.fromEntries(intent.form)).toMatchObject({
      amount: '50',
      currency: 'usd',
      confirm: 'true',
      shared_payment_granted_token: 'spt_test_good',
    });
    expect(intent.idempotencyKey).toMatch(/^mpp_.+_spt_test_good$/);
  });

  it('refuses a declined token with verification-failed and no receipt', async () => {
    const res = await paidSearch('spt_declined');
    expect(res.status).toBe(402);
    const problem = (await res.json()) as { type: string; detail: string };
    expect(problem.type).toBe('https://paymentauth.org/problems/verification-failed');
    expect(problem.detail).toContain('Your card was declined.');
    expect(res.headers.get('payment-receipt')).toBeNull();
  });
});
