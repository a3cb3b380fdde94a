import { Logger } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { json, raw, text, urlencoded } from 'express';
import {
  PayloadTooLargeError,
  ProblemError,
  UnreadableBodyError,
  UnsupportedEncodingError,
} from '../common/problem';
import { MAX_JSON_DEPTH, nestsDeeperThan, wellFormed } from '../common/json-text';
import { sendProblem } from './problem.filter';

export const BODY_LIMIT = 64 * 1024;
const FORM_LIMIT = 16 * 1024;
const WEBHOOK_LIMIT = 256 * 1024;

const logger = new Logger('Http');

/**
 * Stands in for a body that was read but cannot be used (not JSON, nested too deep),
 * so that validation (422) reports it after authentication.
 */
export class RefusedBody {
  constructor(readonly reason: string) {}
}

/**
 * Parses every request body as JSON, whatever its Content-Type (a `curl -d` without
 * `-H` still works). Bodies over the limit are refused here with 413; a body that is
 * not JSON is left for the validation pipe, so authentication is still checked first.
 * A body an earlier parser read (a form, a webhook) is left as it is.
 */
export function jsonBody(): RequestHandler {
  return guarded(
    json({
      limit: BODY_LIMIT,
      type: () => true,
      strict: false,
      verify: refuseDeepNesting,
      reviver: wellFormed,
    }),
    BODY_LIMIT,
  );
}

/**
 * The text of a push of facts (`POST /admin/facts`: JSON Lines or a JSON array), read
 * whole up to its own `limit`, for the ingest to parse line by line. Other requests
 * under the same path (a retraction's small JSON body) go to the JSON parser.
 */
export function pushBody(limit: number): RequestHandler {
  const parse = guarded(text({ limit, type: () => true, defaultCharset: 'utf-8' }), limit);
  return (req: Request, res: Response, next: NextFunction) =>
    req.method === 'POST' && req.path === '/' ? parse(req, res, next) : next();
}

/** The dashboard's HTML forms. */
export function formBody(): RequestHandler {
  return guarded(urlencoded({ limit: FORM_LIMIT, extended: false }), FORM_LIMIT);
}

/** The bytes as sent, for webhooks whose signature covers them. */
export function rawBody(): RequestHandler {
  return guarded(raw({ limit: WEBHOOK_LIMIT, type: () => true }), WEBHOOK_LIMIT);
}

interface ParserFailure {
  type?: string;
  status?: number;
  message?: string;
  limit?: number;
}

function guarded(parse: RequestHandler, limit: number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    // The parser would read (and drop) a whole oversized body before refusing it.
    if (!req.readableEnded && Number(req.headers['content-length']) > limit) {
      res.set('Connection', 'close');
      return sendProblem(res, new PayloadTooLargeError(kib(limit)).toProblem());
    }
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      const failure = err as ParserFailure;
      if (failure.type === 'entity.parse.failed') {
        req.body = new RefusedBody(`not valid JSON (${failure.message ?? 'unparseable'})`);
        return next();
      }
      if (failure.type === DEEP_NESTING) {
        req.body = new RefusedBody(`arrays and objects nest deeper than ${MAX_JSON_DEPTH} levels`);
        return next();
      }
      if (failure.type === 'request.aborted') {
        // The client went away: nobody to answer, and nothing wrong with the server.
        logger.debug(`client closed the connection during the body of ${req.method} ${req.path}`);
        return;
      }
      const problem = toProblem(failure, req);
      if (!problem) return next(err);
      sendProblem(res, problem.toProblem());
    });
  };
}

function toProblem(failure: ParserFailure, req: Request): ProblemError | undefined {
  if (failure.type === 'entity.too.large') {
    return new PayloadTooLargeError(kib(failure.limit ?? 0));
  }
  if (failure.type === 'encoding.unsupported' || failure.type === 'charset.unsupported') {
    return new UnsupportedEncodingError(failure.message ?? 'unsupported encoding');
  }
  // The reader's own failures all carry a type; one without is the decompression
  // stream's (zlib or brotli) on a body that is not what Content-Encoding says.
  if (failure.type === undefined && failure.status === 400) {
    const encoding = req.headers['content-encoding'] ?? 'identity';
    return new UnreadableBodyError(
      `The body does not decode as Content-Encoding "${encoding}" (${failure.message ?? 'corrupt'}).`,
    );
  }
  if (failure.status !== undefined && failure.status >= 400 && failure.status < 500) {
    return new UnreadableBodyError(`The body could not be read (${failure.message ?? 'unknown'}).`);
  }
  return undefined;
}

const DEEP_NESTING = 'entity.too.deep';

/** body-parser's `verify` hook: sees the decoded bytes before JSON.parse does. */
function refuseDeepNesting(_req: unknown, _res: unknown, body: Buffer): void {
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
    throw Object.assign(new Error('nested too deep'), { type: DEEP_NESTING });
  }
}

function kib(bytes: number): string {
  return `${Math.round(bytes / 1024)} KiB`;
}
