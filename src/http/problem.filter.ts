import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { DatabaseUnavailableError, isDatabaseUnavailable } from '../database/errors';
import {
  DomainError,
  Problem,
  PROBLEM_CONTENT_TYPE,
  ProblemError,
  ProblemHeaders,
  problemType,
} from '../common/problem';

/** The HTTP status of each problem type that services raise as a DomainError. */
const STATUSES: Record<string, number> = {
  // accounts
  'invalid-email': 422,
  'unknown-plan': 422,
  'account-not-found': 404,
  'account-exists': 409,
  // auth
  'missing-api-key': 401,
  'invalid-api-key': 401,
  'invalid-key-name': 422,
  'key-not-found': 404,
  'weak-password': 422,
  'invalid-credentials': 401,
  'login-throttled': 429,
  // billing: the quota, Stripe, and the Payment scheme
  'quota-exceeded': 402,
  'billing-not-configured': 404,
  'invalid-webhook-signature': 400,
  'billing-provider-error': 502,
  'payment-required': 402,
  'malformed-credential': 402,
  'invalid-challenge': 402,
  'payment-expired': 402,
  'verification-failed': 402,
  // search
  'embedder-unavailable': 503,
  // facts: retractions and pushes
  'fact-not-found': 404,
  'fact-retracted': 409,
  'fact-not-retracted': 409,
  'payload-too-large': 413,
  // sources
  'invalid-source': 422,
  'source-exists': 409,
  'source-not-found': 404,
  // database
  'database-unavailable': 503,
};

/** The status a domain error is answered with; 500 for a problem type the table lacks. */
export function statusOf(error: DomainError): number {
  return STATUSES[error.slug] ?? 500;
}

/** Renders every error of every route as application/problem+json. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(error: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const [problem, headers] = this.toProblem(error);
    sendProblem(response, problem, headers);
  }

  /** The problem (and headers) an error is answered with; also for MCP tool errors. */
  toProblem(error: unknown): [Problem, ProblemHeaders] {
    if (error instanceof ProblemError) return [error.toProblem(), error.headers];
    if (error instanceof DomainError) return [error.toProblemWith(statusOf(error)), error.headers];
    if (isDatabaseUnavailable(error)) {
      this.logger.warn(`database unavailable: ${(error as Error).message}`);
      const unavailable = new DatabaseUnavailableError();
      return [unavailable.toProblemWith(statusOf(unavailable)), unavailable.headers];
    }
    if (error instanceof HttpException) {
      const status = error.getStatus();
      return [
        {
          type: 'about:blank',
          title: error.name.replace(/Exception$/, ''),
          status,
          detail: error.message,
        },
        {},
      ];
    }
    this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return [
      {
        type: problemType('internal-error'),
        title: 'Internal error',
        status: 500,
        detail: 'The server failed to answer this request; it has been logged.',
      },
      {},
    ];
  }
}

export function sendProblem(
  response: Response,
  problem: Problem,
  headers: ProblemHeaders = {},
): void {
  response
    .status(problem.status)
    .set(headers)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(problem));
}
