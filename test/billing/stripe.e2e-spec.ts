import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import Stripe from 'stripe';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { AccountsService } from '../../src/accounts/accounts.service';
import { startApp, TestApp } from '../support/app';
import { DashboardClient } from '../support/dashboard';

const WEBHOOK_SECRET = 'whsec_test_freshfacts_webhook_secret';
const PRICE = 'price_test_paid_monthly';
/** Only for its signing helper: the same code Stripe's own SDK verifies with. */
const stripe = Stripe('sk_test_unused');

interface Recorded {
  path: string;
  authorization?: string;
  form: URLSearchParams;
}

/**
 * A stand-in for Stripe's API, only for the two calls that create hosted pages
 * (Checkout and the customer portal): the real API cannot be reached from here.
 * Webhooks are not stood in for: they are signed with the stripe package's helper
 * and verified by the same package, as Stripe's own deliveries are.
 */
async function startStripeStandIn(): Promise<{
  url: string;
  calls: Recorded[];
  failNext(): void;
  close(): Promise<void>;
}> {
  const calls: Recorded[] = [];
  let fail = false;
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      calls.push({ path: req.url ?? '', authorization: req.headers.authorization, form });
      res.setHeader('content-type', 'application/json');
      if (fail) {
        fail = false;
        res.statusCode = 400;
        res.end(
          JSON.stringify({ error: { type: 'invalid_request_error', message: 'No such price' } }),
        );
      } else if (req.method === 'POST' && req.url === '/v1/checkout/sessions') {
        res.end(
          JSON.stringify({
            id: 'cs_test_1',
            object: 'checkout.session',
            mode: 'subscription',
            url: 'https://checkout.stripe.com/c/pay/cs_test_1',
          }),
        );
      } else if (req.method === 'POST' && req.url === '/v1/billing_portal/sessions') {
        res.end(
          JSON.stringify({
            id: 'bps_1',
            object: 'billing_portal.session',
            url: `https://billing.stripe.com/p/session/${form.get('customer')}`,
          }),
        );
      } else {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'unknown' } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    failNext: () => (fail = true),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let sequence = 0;

function event(type: string, object: Record<string, unknown>): string {
  sequence++;
  return JSON.stringify({
    id: `evt_test_${sequence}`,
    object: 'event',
    type,
    api_version: '2025-01-01',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: { object },
  });
}

function deliver(t: TestApp, payload: string, signature?: string) {
  const req = request(t.url).post('/webhooks/stripe').set('content-type', 'application/json');
  if (signature !== undefined) req.set('stripe-signature', signature);
  return req.send(payload);
}

const sign = (payload: string, options: { secret?: string; timestamp?: number } = {}) =>
  stripe.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? WEBHOOK_SECRET,
    timestamp: options.timestamp,
  });

describe('upgrading through Stripe', () => {
  let t: TestApp;
  let standIn: Awaited<ReturnType<typeof startStripeStandIn>>;
  beforeAll(async () => {
    standIn = await startStripeStandIn();
    t = await startApp({
      env: {
        FRESHFACTS_STRIPE_SECRET_KEY: 'sk_test_freshfacts',
        FRESHFACTS_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        FRESHFACTS_STRIPE_PRICE_ID: PRICE,
        FRESHFACTS_STRIPE_API_URL: standIn.url,
        // Plain HTTP, so that the test's cookie jar sends the (then not Secure) cookies.
        FRESHFACTS_PUBLIC_URL: 'http://facts.example.com',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await standIn.close();
  });

  const accountId = async (email: string) =>
    String((await t.app.get(AccountsService).find(email)).id);
  const planOf = async (email: string) => (await t.app.get(AccountsService).find(email)).plan;

  it('sends the account to Checkout, and the signed webhook makes it paid', async () => {
    const owner = await new DashboardClient(t.url).signUp('buyer@example.com');
    const billing = await owner.agent.get('/dashboard/billing').expect(200);
    expect(billing.text).toContain('Upgrade with Stripe');
    expect(billing.headers['content-security-policy']).toContain(
      "form-action 'self' https://checkout.stripe.com https://billing.stripe.com",
    );

    const redirect = await owner.submit(303, '/dashboard/billing', '/dashboard/billing/checkout');
    expect(redirect.headers.location).toBe('https://checkout.stripe.com/c/pay/cs_test_1');
    const id = await accountId('buyer@example.com');
    const [created] = standIn.calls.filter((call) => call.path === '/v1/checkout/sessions');
    expect(created.authorization).toBe('Bearer sk_test_freshfacts');
    expect(Object.fromEntries(created.form)).toMatchObject({
      mode: 'subscription',
      'line_items[0][price]': PRICE,
      'line_items[0][quantity]': '1',
      client_reference_id: id,
      customer_email: 'buyer@example.com',
      'subscription_data[metadata][account_id]': id,
      success_url: 'http://facts.example.com/dashboard/billing?checkout=success',
      cancel_url: 'http://facts.example.com/dashboard/billing?checkout=cancelled',
    });
    expect(await planOf('buyer@example.com')).toBe('free');

    const completed = event('checkout.session.completed', {
      id: 'cs_test_1',
      object: 'checkout.session',
      mode: 'subscription',
      client_reference_id: id,
      customer: 'cus_buyer',
      subscription: 'sub_buyer',
      payment_status: 'paid',
    });
    const res = await deliver(t, completed, sign(completed)).expect(200);
    expect(res.body).toEqual({ received: true, applied: true });
    expect(await planOf('buyer@example.com')).toBe('paid');

    // Stripe delivers at least once: the same event again changes nothing.
    await deliver(t, completed, sign(completed)).expect(200, { received: true, applied: false });

    const paid = await owner.agent.get('/dashboard/billing').expect(200);
    expect(paid.text).toContain('Manage subscription');
    const usage = await owner.agent.get('/dashboard/usage').expect(200);
    expect(usage.text).toContain('Paid plan, no monthly cap');

    const portal = await owner.submit(303, '/dashboard/billing', '/dashboard/billing/portal');
    expect(portal.headers.location).toBe('https://billing.stripe.com/p/session/cus_buyer');
  });

  it('returns the account to free when the subscription ends', async () => {
    await new DashboardClient(t.url).signUp('churn@example.com');
    const id = await accountId('churn@example.com');
    const completed = event('checkout.session.completed', {
      object: 'checkout.session',
      mode: 'subscription',
      client_reference_id: id,
      customer: 'cus_churn',
      subscription: 'sub_churn',
    });
    await deliver(t, completed, sign(completed)).expect(200);
    expect(await planOf('churn@example.com')).toBe('paid');

    const pastDue = event('customer.subscription.updated', {
      id: 'sub_churn',
      object: 'subscription',
      status: 'past_due', // Stripe is still retrying the card
      customer: 'cus_churn',
      metadata: { account_id: id },
    });
    await deliver(t, pastDue, sign(pastDue)).expect(200);
    expect(await planOf('churn@example.com')).toBe('paid');

    const deleted = event('customer.subscription.deleted', {
      id: 'sub_churn',
      object: 'subscription',
      status: 'canceled',
      customer: 'cus_churn',
      metadata: { account_id: id },
    });
    await deliver(t, deleted, sign(deleted)).expect(200, { received: true, applied: true });
    expect(await planOf('churn@example.com')).toBe('free');
  });

  it('refuses deliveries that Stripe did not sign, and changes nothing', async () => {
    await t.app.get(ApiKeysService).create('target@example.com');
    const id = await accountId('target@example.com');
    const forged = event('checkout.session.completed', {
      object: 'checkout.session',
      mode: 'subscription',
      client_reference_id: id,
      customer: 'cus_forged',
      subscription: 'sub_forged',
    });
    const cases: [string, string | undefined, string][] = [
      ['no header', undefined, 'Stripe-Signature header is missing'],
      ['another secret', sign(forged, { secret: 'whsec_someone_else' }), 'No signatures found'],
      ['a tampered body', sign(forged.replace('sub_forged', 'sub_other')), 'No signatures found'],
      [
        'a replay from long ago',
        sign(forged, { timestamp: Math.floor(Date.now() / 1000) - 3600 }),
        'Timestamp outside the tolerance zone',
      ],
      ['garbage', 'not a signature', 'Unable to extract timestamp and signatures'],
    ];
    for (const [, signature, reason] of cases) {
      const res = await deliver(t, forged, signature).expect(400);
      expect(res.body).toMatchObject({ type: '/problems/invalid-webhook-signature', status: 400 });
      expect(res.body.detail).toContain(reason);
    }
    expect(await planOf('target@example.com')).toBe('free');
  });

  it('shows a clear page when Stripe refuses to create the Checkout session', async () => {
    const owner = await new DashboardClient(t.url).signUp('unlucky@example.com');
    standIn.failNext();
    const res = await owner.submit(502, '/dashboard/billing', '/dashboard/billing/checkout');
    expect(res.text).toContain('The billing provider failed');
    expect(res.text).toContain('No such price');
  });
});

describe('a self-hosted server without Stripe', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('answers webhook deliveries with 404 and a reason', async () => {
    const payload = event('checkout.session.completed', { object: 'checkout.session' });
    const res = await deliver(t, payload, sign(payload)).expect(404);
    expect(res.body).toMatchObject({ type: '/problems/billing-not-configured' });
  });
});
