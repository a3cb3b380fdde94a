import {
  CallHandler,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  NestInterceptor,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { catchError, map, Observable, throwError } from 'rxjs';

export type AnswerHeaders = Record<string, string>;

/** A value and the response headers that go with it. */
export class Metered<T> {
  constructor(
    readonly value: T,
    readonly headers: AnswerHeaders,
  ) {}
}

/**
 * How a call is paid for: counted against the monthly quota of the caller's plan, or
 * settled by a per-call payment. A guard picks the meter of each request.
 */
export interface Meter {
  /** Runs `call` as this meter allows, and answers its value with the headers to send. */
  metered<T>(call: () => Promise<T>): Promise<Metered<T>>;
  /** The headers decided so far: those of a counted call still go out when the call fails. */
  readonly headers: AnswerHeaders;
}

/** A request as a metering guard leaves it. */
export type MeteredRequest = Request & { meter?: Meter };

/** The meter the route's guard chose for this request. */
export const CallMeter = createParamDecorator((_: unknown, context: ExecutionContext): Meter => {
  const meter = context.switchToHttp().getRequest<MeteredRequest>().meter;
  if (!meter) throw new Error('the meter is read on a route without a metering guard');
  return meter;
});

/**
 * Writes the headers of a metered answer and sends its value; when the handler fails,
 * writes the headers its meter had decided (the error's own follow from the filter).
 */
@Injectable()
export class MeteredInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const response = http.getResponse<Response>();
    return next.handle().pipe(
      map((result: unknown) => {
        if (!(result instanceof Metered)) return result;
        response.set(result.headers);
        return result.value as unknown;
      }),
      catchError((err: unknown) => {
        const meter = http.getRequest<MeteredRequest>().meter;
        if (meter) response.set(meter.headers);
        return throwError(() => err);
      }),
    );
  }
}
