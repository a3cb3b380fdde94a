import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { DatabaseUnavailableError, isDatabaseUnavailable } from '../database/errors';
import {
  Problem,
  PROBLEM_CONTENT_TYPE,
  ProblemError,
  ProblemHeaders,
  problemType,
} from './problem';

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
    if (isDatabaseUnavailable(error)) {
      this.logger.warn(`database unavailable: ${(error as Error).message}`);
      const unavailable = new DatabaseUnavailableError();
      return [unavailable.toProblem(), unavailable.headers];
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
