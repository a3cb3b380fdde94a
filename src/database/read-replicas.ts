import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { AppConfig, CONFIG } from '../config/config';
import { isDatabaseUnavailable } from './errors';
import { PreparingClient } from './preparing-client';

/** What the service knows of one streaming replica, for logs and tests. */
export interface ReplicaStatus {
  url: string;
  /** Reachable, replaying, and at most the configured lag behind the primary. */
  usable: boolean;
  /** Milliseconds behind the primary at the last check; null when it could not be asked. */
  lagMs: number | null;
  /** Statements it answered. */
  served: number;
}

interface Replica extends ReplicaStatus {
  pool: Pool;
}

/** How often the replicas' lag is measured. */
const CHECK_MS = 500;

/**
 * Read-only statements that may be answered from a PostgreSQL streaming replica
 * (searches): each goes to the next usable replica in turn, and to the primary when
 * none is usable or when the one asked fails to answer for want of a connection (a
 * replica stopped mid-request costs the caller nothing). Everything that writes or
 * must see the latest write (keys, quota, payments, ingest) uses the primary's
 * DataSource directly.
 *
 * A replica's lag is measured against the primary's WAL position, not its last replay
 * time, which stops moving when the primary is idle: every check notes the primary's
 * position, and a replica is as current as the newest noted position it has replayed.
 */
@Injectable()
export class ReadReplicas implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReadReplicas.name);
  private readonly replicas: Replica[];
  /** The primary's WAL position at each recent check, oldest first. */
  private positions: { at: number; lsn: bigint }[] = [];
  private next = 0;
  private timer?: NodeJS.Timeout;
  private checking?: Promise<void>;

  constructor(
    private readonly primary: DataSource,
    @Inject(CONFIG) private readonly config: AppConfig,
  ) {
    this.replicas = config.replicaUrls.map((url) => {
      const pool = new Pool({
        connectionString: url,
        max: config.dbPoolSize,
        connectionTimeoutMillis: 2000,
        keepAlive: true,
        ...(config.dbPreparedStatements ? { Client: PreparingClient } : {}),
      });
      // A dropped idle connection is the next check's business, not a crash.
      pool.on('error', () => undefined);
      return { url, pool, usable: false, lagMs: null, served: 0 };
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.replicas.length === 0) return;
    await this.check();
    this.timer = setInterval(() => {
      this.checking ??= this.check().finally(() => (this.checking = undefined));
    }, CHECK_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
    await Promise.all(this.replicas.map((replica) => replica.pool.end()));
  }

  status(): ReplicaStatus[] {
    return this.replicas.map(({ url, usable, lagMs, served }) => ({ url, usable, lagMs, served }));
  }

  /**
   * Runs `statements` on every connection that may answer a search: each of the
   * primary's pooled connections (the embedded store has one) and of each replica's,
   * all opened now. A new PostgreSQL backend plans each statement on its first run
   * (a generic plan, `plan_cache_mode`, kept per connection by `PreparingClient`),
   * fills its catalog caches and maps the pages of shared memory it touches, one
   * page fault at a time: at 100k facts about 60 ms of CPU over its first searches
   * (a third of it the plans), which a pool that opens connections as load grows
   * paid while answering its first burst of callers. One run of each statement on a
   * connection pays all of it (bench/README.md).
   */
  async warm(statements: [string, unknown[]][]): Promise<void> {
    const runners = Array.from(
      { length: this.config.databaseUrl ? this.config.dbPoolSize : 1 },
      () => this.primary.createQueryRunner(),
    );
    try {
      // Connected all at once, so that each is a connection of its own.
      await Promise.all(runners.map((runner) => runner.connect()));
      await Promise.all(
        runners.map((runner) => runAll(statements, (sql, p) => runner.query(sql, p))),
      );
    } finally {
      await Promise.all(runners.map((runner) => runner.release()));
    }
    await Promise.all(this.replicas.map((replica) => this.warmReplica(replica, statements)));
  }

  private async warmReplica(replica: Replica, statements: [string, unknown[]][]): Promise<void> {
    const clients: PoolClient[] = [];
    try {
      for (let i = 0; i < this.config.dbPoolSize; i++) clients.push(await replica.pool.connect());
      await Promise.all(
        clients.map((client) => runAll(statements, (sql, p) => client.query(sql, p))),
      );
    } catch (err) {
      // A replica that cannot be reached now is skipped by searches until it can.
      if (!isDatabaseUnavailable(err)) throw err;
    } finally {
      for (const client of clients) client.release();
    }
  }

  /** Runs a read-only statement on a usable replica, else on the primary. */
  async query<T>(sql: string, params: unknown[]): Promise<T> {
    const usable = this.replicas.filter((replica) => replica.usable);
    for (let i = 0; i < usable.length; i++) {
      const replica = usable[(this.next + i) % usable.length];
      try {
        const result = await replica.pool.query(sql, params);
        this.next = (this.next + i + 1) % usable.length;
        replica.served++;
        return result.rows as T;
      } catch (err) {
        if (!isDatabaseUnavailable(err)) throw err;
        this.mark(replica, false, null, err);
      }
    }
    return this.primary.query<T>(sql, params);
  }

  private async check(): Promise<void> {
    const now = Date.now();
    try {
      const [{ lsn }] = await this.primary.query<{ lsn: string }[]>(
        `SELECT pg_current_wal_lsn()::text AS lsn`,
      );
      this.positions.push({ at: now, lsn: parseLsn(lsn) });
    } catch {
      // Without the primary's position the lags stay as last measured.
      return;
    }
    const keep = now - 2 * this.config.replicaMaxLagMs - CHECK_MS;
    while (this.positions.length > 1 && this.positions[0].at < keep) this.positions.shift();
    await Promise.all(this.replicas.map((replica) => this.checkReplica(replica, now)));
  }

  private async checkReplica(replica: Replica, now: number): Promise<void> {
    try {
      const {
        rows: [row],
      } = await replica.pool.query<{ standby: boolean; lsn: string | null }>(
        `SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS lsn`,
      );
      // A server out of recovery (promoted, or not a replica) no longer follows the primary.
      if (!row.standby || !row.lsn) return this.mark(replica, false, null, 'not a standby');
      const replayed = parseLsn(row.lsn);
      const current = [...this.positions].reverse().find((p) => p.lsn <= replayed);
      const lagMs = now - (current?.at ?? this.positions[0].at - this.config.replicaMaxLagMs);
      this.mark(replica, lagMs <= this.config.replicaMaxLagMs, lagMs, `${lagMs} ms behind`);
    } catch (err) {
      this.mark(replica, false, null, err);
    }
  }

  private mark(replica: Replica, usable: boolean, lagMs: number | null, why: unknown): void {
    if (replica.usable !== usable) {
      const reason = why instanceof Error ? why.message : String(why);
      if (usable) this.logger.log(`replica ${redact(replica.url)} in use`);
      else this.logger.warn(`replica ${redact(replica.url)} skipped: ${reason}`);
    }
    replica.usable = usable;
    replica.lagMs = lagMs;
  }
}

async function runAll(
  statements: [string, unknown[]][],
  query: (sql: string, params: unknown[]) => Promise<unknown>,
): Promise<void> {
  for (const [sql, params] of statements) await query(sql, params);
}

/** A WAL position `X/Y` (two hexadecimal halves) as one number. */
export function parseLsn(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
