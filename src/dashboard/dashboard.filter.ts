import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError, ProblemError, ProblemHeaders } from '../common/problem';
import { statusOf } from '../http/problem.filter';
import { DatabaseUnavailableError, isDatabaseUnavailable } from '../database/errors';
import { SignInRequiredError } from './dashboard.guard';

/** Errors of dashboard pages as pages: a visitor without a session goes to the login page. */
@Catch()
export class DashboardFilter implements ExceptionFilter {
  private readonly logger = new Logger('Dashboard');

  catch(error: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (error instanceof SignInRequiredError) return response.redirect(303, '/dashboard/login');
    let status = 500;
    let title = 'Something went wrong';
    let detail = 'The server failed to show this page; it has been logged. Try again shortly.';
    let headers: ProblemHeaders = {};
    if (isDatabaseUnavailable(error)) error = new DatabaseUnavailableError();
    if (error instanceof ProblemError) {
      ({ status, title, detail, headers } = error);
    } else if (error instanceof DomainError) {
      ({ title, detail, headers } = error);
      status = statusOf(error);
    } else if (error instanceof HttpException) {
      status = error.getStatus();
      title = error.name.replace(/Exception$/, '').replace(/([a-z])([A-Z])/g, '$1 $2');
      detail = error.message;
    } else {
      this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    }
    response.status(status).set(headers).render('error', { title, detail, status });
  }
}
