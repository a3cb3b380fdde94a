import {
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import type { Caller } from '../billing/quota.service';
import {
  AdmittedPayment,
  bindingOf,
  CREDENTIAL_HEADER,
  PaymentChallenges,
} from '../billing/payments/payment-challenges';
import { PaymentProblemError } from '../billing/payments/payment-errors';
import { PaymentService } from '../billing/payments/payment.service';
import { bearerToken } from '../common/bearer';
import { ProblemError } from '../common/problem';
import { ApiKeysService } from './api-keys.service';

const PAYMENT_ACCEPTED = 'freshfacts:payment-accepted';

/**
 * Marks a route that also takes per-call payment: without an Authorization header
 * it answers 402 with a payment challenge instead of 401, and admits a request whose
 * Payment-Authorization credential pays for it.
 */
export const PaymentAccepted = () => SetMetadata(PAYMENT_ACCEPTED, true);

export class MissingApiKeyError extends ProblemError {
  constructor() {
    super(
      401,
      'missing-api-key',
      'API key required',
      'Send the header Authorization: Bearer <API_KEY>.',
      {},
      {
        'WWW-Authenticate': 'Bearer realm="freshfacts"',
      },
    );
  }
}

export class InvalidApiKeyError extends ProblemError {
  constructor(detail: string) {
    super(
      401,
      'invalid-api-key',
      'Invalid API key',
      detail,
      {},
      {
        'WWW-Authenticate': 'Bearer realm="freshfacts", error="invalid_token"',
      },
    );
  }
}

export class PaymentRequiredError extends ProblemError {
  constructor() {
    super(
      402,
      'payment-required',
      'Payment required',
      'Send Authorization: Bearer <API_KEY> (keys are created in the dashboard or with ' +
        '`freshfacts keys create`), or pay for this call.',
    );
  }
}

/**
 * Admits a request that carries an active API key as a bearer token or, where the
 * route accepts payment, a payment credential that passes the stateless checks.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly reflector: Reflector,
    private readonly challenges: PaymentChallenges,
    private readonly payments: PaymentService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<CallerRequest>();
    const header = request.headers.authorization;
    if (header === undefined) {
      const payable = this.reflector.get<boolean>(PAYMENT_ACCEPTED, context.getHandler());
      if (!payable) throw new MissingApiKeyError();
      if (!this.challenges.enabled) throw new PaymentRequiredError();
      // The challenge and the credential are bound to this request: route and body.
      const binding = bindingOf(request.method, request.path, request.body);
      const credential = request.get(CREDENTIAL_HEADER);
      try {
        if (credential === undefined) throw this.challenges.required(binding);
        request.caller = { payment: this.challenges.admit(credential, binding) };
      } catch (err) {
        if (err instanceof PaymentProblemError) this.payments.refused(err);
        throw err;
      }
      return true;
    }
    request.caller = await this.accountOf(header);
    return true;
  }

  /** The account of an `Authorization: Bearer <API_KEY>` header with an active key. */
  async accountOf(header: string): Promise<Caller> {
    const token = bearerToken(header);
    if (!token)
      throw new InvalidApiKeyError('The Authorization header must be "Bearer <API_KEY>".');
    const key = await this.keys.verify(token);
    if (!key) throw new InvalidApiKeyError('The API key is unknown or revoked.');
    return { accountId: key.accountId, plan: key.plan };
  }
}

/** A caller without an account, paying for this one call. */
export interface PayingCaller {
  payment: AdmittedPayment;
}

type CallerRequest = Request & { caller?: Caller | PayingCaller };

function callerOf(context: ExecutionContext): Caller | PayingCaller {
  const caller = context.switchToHttp().getRequest<CallerRequest>().caller;
  if (!caller) throw new Error('the caller is read on a route without ApiKeyGuard');
  return caller;
}

/** The account of the API key that the guard admitted. */
export const CallerAccount = createParamDecorator(
  (_: unknown, context: ExecutionContext): Caller => {
    const caller = callerOf(context);
    if ('payment' in caller) throw new Error('CallerAccount used on a route that takes payment');
    return caller;
  },
);

/** The key's account, or the payment, that the guard admitted on a @PaymentAccepted route. */
export const KeyOrPayment = createParamDecorator(
  (_: unknown, context: ExecutionContext): Caller | PayingCaller => callerOf(context),
);
