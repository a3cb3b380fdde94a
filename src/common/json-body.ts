import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { json, raw, urlencoded } from 'express';
import { PayloadTooLargeError, ProblemError, UnsupportedEncodingError } from './problem';
import { sendProblem } from './problem.filter';

export const BODY_LIMIT = '64kb';

/** Stands in for a body that was not valid JSON, so validation (422) reports it after auth. */
export class MalformedJson {
  constructor(readonly reason: string) {}
}

/**
 * Parses every request body as JSON, whatever its Content-Type (a `curl -d` without
 * `-H` still works). Bodies over the limit are refused here with 413; a body that is
 * not JSON is left for the validation pipe, so authentication is still checked first.
 * A body an earlier parser read (a form, a webhook) is left as it is.
 */
export function jsonBody(): RequestHandler {
  return guarded(json({ limit: BODY_LIMIT, type: () => true, strict: false }));
}

/** The dashboard's HTML forms. */
export function formBody(): RequestHandler {
  return guarded(urlencoded({ limit: '16kb', extended: false }));
}

/** The bytes as sent, for webhooks whose signature covers them. */
export function rawBody(): RequestHandler {
  return guarded(raw({ limit: '256kb', type: () => true }));
}

function guarded(parse: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) =>
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      const failure = err as { type?: string; message?: string; limit?: number };
      if (failure.type === 'entity.parse.failed') {
        req.body = new MalformedJson(failure.message ?? 'unparseable');
        return next();
      }
      const problem = toProblem(failure);
      if (!problem) return next(err);
      sendProblem(res, problem.toProblem());
    });
}

function toProblem(failure: {
  type?: string;
  message?: string;
  limit?: number;
}): ProblemError | undefined {
  if (failure.type === 'entity.too.large') {
    return new PayloadTooLargeError(`${Math.round((failure.limit ?? 0) / 1024)} KiB`);
  }
  if (failure.type === 'encoding.unsupported' || failure.type === 'charset.unsupported') {
    return new UnsupportedEncodingError(failure.message ?? 'unsupported encoding');
  }
  return undefined;
}
