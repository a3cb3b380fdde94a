import { DomainError } from '../common/problem';

/** The database cannot be used as configured; the message says what to do. */
export class DatabaseSetupError extends Error {}

export class DatabaseUnavailableError extends DomainError {
  constructor() {
    super(
      'database-unavailable',
      'Database unavailable',
      'The database cannot be reached right now; the call was not counted. Retry shortly.',
      {},
      { 'Retry-After': '5' },
    );
  }
}

// Connection-level failures (the server is down, restarting or out of connections),
// as opposed to an error in a statement. SQLSTATE class 08 is "connection exception";
// 57P01-57P03 are shutdowns and "cannot connect now"; 53300 is too many connections.
const CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
const MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed|connect ECONNREFUSED|read ECONNRESET/i;

/** Whether `error` says the database could not be reached, rather than that a statement failed. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let cause = error, depth = 0; cause && depth < 4; depth++) {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (CODES.has(code) || code.startsWith('08'))) return true;
    if (typeof message === 'string' && MESSAGES.test(message)) return true;
    const next = cause as { driverError?: unknown; cause?: unknown };
    cause = next.driverError ?? next.cause;
  }
  return false;
}
