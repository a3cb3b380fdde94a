import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { Caller } from '../accounts/caller';
import { bearerToken } from '../common/bearer';
import { DomainError } from '../common/problem';
import { ApiKeysService } from './api-keys.service';

export class MissingApiKeyError extends DomainError {
  constructor() {
    super(
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

export class InvalidApiKeyError extends DomainError {
  constructor(detail: string) {
    super(
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

/** A request as the API key guard leaves it: with the account of its key. */
export type CallerRequest = Request & { caller?: Caller };

/** Admits a request that carries an active API key as a bearer token. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly keys: ApiKeysService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<CallerRequest>();
    const header = request.headers.authorization;
    if (header === undefined) throw new MissingApiKeyError();
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

/** The account of the API key that the guard admitted. */
export const CallerAccount = createParamDecorator(
  (_: unknown, context: ExecutionContext): Caller => {
    const caller = context.switchToHttp().getRequest<CallerRequest>().caller;
    if (!caller) throw new Error('the caller is read on a route without ApiKeyGuard');
    return caller;
  },
);
