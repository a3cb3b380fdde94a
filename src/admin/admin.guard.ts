import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { bearerToken } from '../common/bearer';
import { sameSecret } from '../common/constant-time';
import { ProblemError } from '../common/problem';
import { AppConfig, CONFIG } from '../config/config';
import { adminCredentialId, AdminRequest } from './admin-credential';

export class AdminDisabledError extends ProblemError {
  constructor() {
    super(
      403,
      'admin-disabled',
      'Admin endpoints disabled',
      'Set FRESHFACTS_ADMIN_TOKEN to enable /admin.',
    );
  }
}

export class InvalidAdminTokenError extends ProblemError {
  constructor() {
    super(
      401,
      'invalid-admin-token',
      'Admin token required',
      'Send Authorization: Bearer <FRESHFACTS_ADMIN_TOKEN>.',
      {},
      {
        'WWW-Authenticate': 'Bearer realm="freshfacts-admin"',
      },
    );
  }
}

/** Admits operators who present the admin token from settings. */
@Injectable()
export class AdminGuard implements CanActivate {
  private readonly expected?: string;

  constructor(@Inject(CONFIG) config: AppConfig) {
    this.expected = config.adminToken;
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.expected) throw new AdminDisabledError();
    const request = context.switchToHttp().getRequest<AdminRequest>();
    const token = bearerToken(request.headers.authorization);
    if (!token || !sameSecret(token, this.expected)) throw new InvalidAdminTokenError();
    request.adminCredential = adminCredentialId(token);
    return true;
  }
}
