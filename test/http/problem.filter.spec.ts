import { ArgumentsHost, NotFoundException } from '@nestjs/common';
import {
  AccountExistsError,
  AccountNotFoundError,
  UnknownPlanError,
} from '../../src/accounts/accounts.service';
import { InvalidEmailError } from '../../src/accounts/email';
import { InvalidApiKeyError, MissingApiKeyError } from '../../src/auth/api-key.guard';
import { InvalidKeyNameError, KeyNotFoundError } from '../../src/auth/api-keys.service';
import {
  InvalidCredentialsError,
  LoginThrottledError,
  WeakPasswordError,
} from '../../src/auth/sign-in.service';
import { PaymentRequiredError } from '../../src/billing/payments/payment.guard';
import {
  invalidChallenge,
  malformedCredential,
  paymentExpired,
  paymentRequired,
  verificationFailed,
} from '../../src/billing/payments/payment-errors';
import { QuotaExceededError } from '../../src/billing/quota.service';
import {
  BillingNotConfiguredError,
  BillingProviderError,
  InvalidWebhookSignatureError,
} from '../../src/billing/stripe-billing.service';
import { DomainError, RequestValidationError } from '../../src/common/problem';
import { ProblemFilter } from '../../src/http/problem.filter';
import { EmbedderUnavailableError } from '../../src/search/search.service';

/** Captures what the filter writes, standing in for an Express response. */
function capture() {
  const sent: { status?: number; type?: string; headers: Record<string, string>; body?: string } = {
    headers: {},
  };
  const response = {
    status(code: number) {
      sent.status = code;
      return response;
    },
    set(headers: Record<string, string>) {
      Object.assign(sent.headers, headers);
      return response;
    },
    type(type: string) {
      sent.type = type;
      return response;
    },
    send(body: string) {
      sent.body = body;
      return response;
    },
  };
  const host = {
    switchToHttp: () => ({ getResponse: () => response }),
  } as unknown as ArgumentsHost;
  return { sent, host };
}

describe('the problem+json filter', () => {
  const filter = new ProblemFilter();

  it('renders our errors with their status, type and extensions', () => {
    const { sent, host } = capture();
    filter.catch(
      new RequestValidationError([{ loc: ['body', 'k'], msg: 'k must be an integer' }]),
      host,
    );
    expect(sent.status).toBe(422);
    expect(sent.type).toBe('application/problem+json');
    expect(JSON.parse(sent.body!)).toEqual({
      type: '/problems/invalid-request',
      title: 'Invalid request body',
      status: 422,
      detail: 'k: k must be an integer',
      errors: [{ loc: ['body', 'k'], msg: 'k must be an integer' }],
    });
  });

  it('renders framework HTTP errors as problems too', () => {
    const { sent, host } = capture();
    filter.catch(new NotFoundException('Cannot GET /x'), host);
    expect(JSON.parse(sent.body!)).toMatchObject({
      status: 404,
      title: 'NotFound',
      detail: 'Cannot GET /x',
    });
  });

  it('answers 500 for anything unexpected without leaking its message', () => {
    const { sent, host } = capture();
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    filter.catch(new Error('password=hunter2 in a stack trace'), host);
    expect(sent.status).toBe(500);
    expect(sent.body).not.toContain('hunter2');
    expect(JSON.parse(sent.body!)).toMatchObject({ type: '/problems/internal-error', status: 500 });
  });

  it('answers each domain error with its status from the one table, the body in the same order', () => {
    const cases: [DomainError, number][] = [
      [new InvalidEmailError('x'), 422],
      [new UnknownPlanError('x'), 422],
      [new AccountNotFoundError('x'), 404],
      [new AccountExistsError('x'), 409],
      [new MissingApiKeyError(), 401],
      [new InvalidApiKeyError('x'), 401],
      [new InvalidKeyNameError('x'), 422],
      [new KeyNotFoundError('x'), 404],
      [new WeakPasswordError('x'), 422],
      [new InvalidCredentialsError(), 401],
      [new LoginThrottledError(60), 429],
      [new QuotaExceededError(1000, '2026-11-01', 'https://x/dashboard/billing', {}), 402],
      [new BillingNotConfiguredError(), 404],
      [new InvalidWebhookSignatureError('x'), 400],
      [new BillingProviderError('x'), 502],
      [new PaymentRequiredError(), 402],
      [paymentRequired([]), 402],
      [malformedCredential('x', []), 402],
      [invalidChallenge('x', []), 402],
      [paymentExpired('x', []), 402],
      [verificationFailed('x', []), 402],
      [new EmbedderUnavailableError('x'), 503],
    ];
    for (const [error, status] of cases) {
      const { sent, host } = capture();
      filter.catch(error, host);
      expect([error.slug, sent.status]).toEqual([error.slug, status]);
      expect(Object.keys(JSON.parse(sent.body!) as object).slice(0, 4)).toEqual([
        'type',
        'title',
        'status',
        'detail',
      ]);
    }
  });

  it('keeps the Payment scheme’s own problem types and the quota’s extension members', () => {
    const { sent, host } = capture();
    filter.catch(invalidChallenge('used', ['Payment id="a"']), host);
    expect(sent.body).toBe(
      '{"type":"https://paymentauth.org/problems/invalid-challenge","title":"Invalid challenge",' +
        '"status":402,"detail":"used"}',
    );
    const quota = capture();
    filter.catch(new QuotaExceededError(1000, '2026-11-01', 'https://x/b', {}), quota.host);
    expect(JSON.parse(quota.sent.body!)).toMatchObject({
      type: '/problems/quota-exceeded',
      status: 402,
      limit: 1000,
      billing_url: 'https://x/b',
    });
  });
});
