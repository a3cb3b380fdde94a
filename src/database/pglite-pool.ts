import { EventEmitter } from 'node:events';
import type { EmbeddedDb } from './pglite-thread';

/**
 * A `pg`-shaped driver over one embedded PGlite, for TypeORM's postgres dialect.
 *
 * PGlite is a single session. typeorm-pglite shares it between all callers at once,
 * so one request's statements can land inside another's open transaction. Here a
 * checked-out client owns the session until it is released, exactly like one pooled
 * connection, so transactions stay isolated and a failed one cannot poison others.
 */
export function pgliteDriver(db: EmbeddedDb): unknown {
  let tail: Promise<void> = Promise.resolve();

  function acquire(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    const ready = tail.then(() => release);
    tail = tail.then(() => held);
    return ready;
  }

  class Client extends EventEmitter {
    async query(sql: string, params?: unknown[]): Promise<PgResult> {
      if (params && params.length > 0) return toPgResult(sql, await db.query(sql, params));
      const results = await db.exec(sql);
      return toPgResult(sql, results[results.length - 1] ?? { rows: [], fields: [] });
    }
  }

  class Pool extends EventEmitter {
    connect(callback: (err: Error | null, client?: Client, release?: () => void) => void): void {
      acquire().then(
        (release) => callback(null, new Client(), release),
        (err: Error) => callback(err),
      );
    }
    end(callback?: (err: Error | null) => void): void {
      // The PGlite instance belongs to whoever created it; it is closed there.
      callback?.(null);
    }
  }

  return { Pool };
}

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
