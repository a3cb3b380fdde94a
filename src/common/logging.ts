import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import { stdTimeFunctions } from 'pino';
import type { AppConfig } from '../config/config';

const LEVELS = { error: 'error', warn: 'warn', log: 'info', debug: 'debug' } as const;
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * One JSON line per event (pino), each request's lines carrying its id: the caller's
 * X-Request-Id when it sends a sane one, else a new UUID, echoed in the response.
 * Requests are logged as method, path and status only: no header, no body, so no
 * key, password, cookie or payment credential can reach a log.
 */
export function loggingOptions(config: AppConfig): Params {
  return {
    pinoHttp: [
      {
        level: LEVELS[config.logLevel],
        timestamp: stdTimeFunctions.isoTime,
        genReqId(req: IncomingMessage, res: ServerResponse) {
          const sent = req.headers['x-request-id'];
          const id = typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
          res.setHeader('X-Request-Id', id);
          return id;
        },
        serializers: {
          req: (req: { id: string; method: string; url: string }) => ({
            id: req.id,
            method: req.method,
            path: req.url.split('?')[0],
          }),
          res: (res: { statusCode: number }) => ({ status: res.statusCode }),
        },
        customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) =>
          err || res.statusCode >= 500 ? 'error' : 'info',
      },
      // Through process.stdout rather than straight to file descriptor 1, so that
      // what is logged can be captured and checked.
      process.stdout,
    ],
  };
}
