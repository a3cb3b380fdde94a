import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { json } from 'express';
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
 */
export function jsonBody(): RequestHandler {
  const parse = json({ limit: BODY_LIMIT, type: () => true, strict: false });
  return (req: Request, res: Response, next: NextFunction) =>
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      const failure = err as { type?: string; message?: string };
      if (failure.type === 'entity.parse.failed') {
        req.body = new MalformedJson(failure.message ?? 'unparseable');
        return next();
      }
      const problem = toProblem(failure);
      if (!problem) return next(err);
      sendProblem(res, problem.toProblem());
    });
}

function toProblem(failure: { type?: string; message?: string }): ProblemError | undefined {
  if (failure.type === 'entity.too.large') return new PayloadTooLargeError('64 KiB');
  if (failure.type === 'encoding.unsupported' || failure.type === 'charset.unsupported') {
    return new UnsupportedEncodingError(failure.message ?? 'unsupported encoding');
  }
  return undefined;
}
