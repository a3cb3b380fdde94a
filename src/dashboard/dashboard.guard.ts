import { randomBytes } from 'node:crypto';
import {
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Inject,
  Injectable,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { parse } from 'cookie';
import type { CookieOptions, Request, Response } from 'express';
import { Session, SESSION_DAYS, SessionsRepository } from '../auth/sessions.repository';
import { sameSecret } from '../common/constant-time';
import { ProblemError } from '../common/problem';
import { AppConfig, CONFIG } from '../config/config';

export const SESSION_COOKIE = 'ff_session';
/** Carries the CSRF token of forms shown before login (sign-up, login). */
export const CSRF_COOKIE = 'ff_csrf';
const PUBLIC_PAGE = 'freshfacts:public-page';

/** A page anyone may open: sign-up and login. */
export const PublicPage = () => SetMetadata(PUBLIC_PAGE, true);

export class SignInRequiredError extends ProblemError {
  constructor() {
    super(401, 'sign-in-required', 'Sign in required', 'Log in to see this page.');
  }
}

export class CsrfTokenError extends ProblemError {
  constructor() {
    super(
      403,
      'csrf-token-invalid',
      'Form expired',
      'This form was not sent from this site or has expired. Reload the page and try again.',
    );
  }
}

/** What a dashboard handler knows about the browser asking. */
export interface Visitor {
  session?: Session;
  /** The cookie value of the session, to close it at logout. */
  sessionToken?: string;
  /** The token every form on the page must send back as `_csrf`. */
  csrfToken: string;
}

type DashboardRequest = Request & { visitor?: Visitor };

export const CurrentVisitor = createParamDecorator(
  (_: unknown, context: ExecutionContext): Visitor =>
    context.switchToHttp().getRequest<DashboardRequest>().visitor!,
);

export function cookieOptions(config: AppConfig, maxAgeMs?: number): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.secureCookies,
    path: '/dashboard',
    ...(maxAgeMs !== undefined && { maxAge: maxAgeMs }),
  };
}

export const SESSION_MAX_AGE_MS = SESSION_DAYS * 86_400_000;

/**
 * Finds the session behind the cookie, sends visitors without one to the login
 * page, and refuses any form post whose `_csrf` field does not match the token of
 * the session (or, before login, of the CSRF cookie).
 */
@Injectable()
export class DashboardGuard implements CanActivate {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly reflector: Reflector,
    @Inject(CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<DashboardRequest>();
    const cookies = parse(request.headers.cookie ?? '');
    const token = cookies[SESSION_COOKIE];
    const session = token ? await this.sessions.find(token) : undefined;
    if (!session && !this.reflector.get<boolean>(PUBLIC_PAGE, context.getHandler())) {
      throw new SignInRequiredError();
    }
    let csrfToken = session?.csrfToken ?? cookies[CSRF_COOKIE];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const body = request.body as Record<string, unknown> | undefined;
      const sent = typeof body?._csrf === 'string' ? body._csrf : '';
      if (!csrfToken || !sameSecret(sent, csrfToken)) throw new CsrfTokenError();
    }
    if (!csrfToken) {
      csrfToken = randomBytes(32).toString('base64url');
      http.getResponse<Response>().cookie(CSRF_COOKIE, csrfToken, cookieOptions(this.config));
    }
    request.visitor = { session, sessionToken: session ? token : undefined, csrfToken };
    return true;
  }
}
