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
import { bearerToken } from '../common/bearer';
import { ProblemError } from '../common/problem';
import { ApiKeysService } from './api-keys.service';

const PAYMENT_ACCEPTED = 'freshfacts:payment-accepted';

/**
 * Marks a route that also takes per-call payment: without an Authorization header
 * it answers 402 (the payment challenge) instead of 401.
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

/** Admits a request that carries an active API key as a bearer token. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const header = request.headers.authorization;
    if (header === undefined) {
      const payable = this.reflector.get<boolean>(PAYMENT_ACCEPTED, context.getHandler());
      throw payable ? new PaymentRequiredError() : new MissingApiKeyError();
    }
    const token = bearerToken(header);
    if (!token)
      throw new InvalidApiKeyError('The Authorization header must be "Bearer <API_KEY>".');
    const key = await this.keys.verify(token);
    if (!key) throw new InvalidApiKeyError('The API key is unknown or revoked.');
    (request as CallerRequest).caller = { accountId: key.accountId, plan: key.account.plan };
    return true;
  }
}

type CallerRequest = Request & { caller?: Caller };

/** The account of the API key that the guard admitted. */
export const CallerAccount = createParamDecorator(
  (_: unknown, context: ExecutionContext): Caller => {
    const caller = context.switchToHttp().getRequest<CallerRequest>().caller;
    if (!caller) throw new Error('CallerAccount used on a route without ApiKeyGuard');
    return caller;
  },
);
