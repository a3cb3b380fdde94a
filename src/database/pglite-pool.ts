import { EventEmitter } from 'node:events';
import type { EmbeddedDb } from './pglite-thread';

/**
 * A `pg`-shaped driver over one embedded PGlite, for TypeORM's postgres dialect.
 *
 * PGlite is a single session, and its thread runs statements one at a time in the
 * order they arrive. A statement outside a transaction is sent as soon as it is
 * asked for, so the thread always has the next one waiting rather than idling while
 * this thread hands the session from one caller to the next (about a sixth of its
 * time under 16 concurrent searches). A transaction must not have other callers'
 * statements land inside it (typeorm-pglite lets that happen): from its first
 * statement until its client is released, the others' statements wait.
 */
export function pgliteDriver(db: EmbeddedDb): unknown {
  /** The open transaction's client, by its token. */
  let owner: object | null = null;
  let ended: Promise<void> = Promise.resolve();
  let end = () => {};

  class Client extends EventEmitter {
    private readonly token = {};

    async query(sql: string, params?: unknown[]): Promise<PgResult> {
      while (owner !== null && owner !== this.token) await ended;
      if (owner === null && BEGINS.test(sql)) {
        owner = this.token;
        ended = new Promise((done) => (end = done));
      }
      if (params && params.length > 0) return toPgResult(sql, await db.query(sql, params));
      const results = await db.exec(sql);
      return toPgResult(sql, results[results.length - 1] ?? { rows: [], fields: [] });
    }

    release(): void {
      if (owner !== this.token) return;
      owner = null;
      end();
    }
  }

  class Pool extends EventEmitter {
    connect(callback: (err: Error | null, client?: Client, release?: () => void) => void): void {
      const client = new Client();
      callback(null, client, () => client.release());
    }
    end(callback?: (err: Error | null) => void): void {
      // The PGlite instance belongs to whoever created it; it is closed there.
      callback?.(null);
    }
  }

  return { Pool };
}

/** How TypeORM (START TRANSACTION) and hand-written SQL (BEGIN) open a transaction. */
const BEGINS = /^\s*(START\s+TRANSACTION|BEGIN)\b/i;

interface PgResult {
  rows: unknown[];
  rowCount: number;
  command: string;
  fields: unknown[];
}

function toPgResult(
  sql: string,
  result: { rows: unknown[]; affectedRows?: number; fields: unknown[] },
): PgResult {
  const command = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? '';
  return {
    rows: result.rows,
    rowCount: result.affectedRows ?? result.rows.length,
    command,
    fields: result.fields,
  };
}
