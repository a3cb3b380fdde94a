import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The only code that speaks SQL to the usage counters. */
@Injectable()
export class UsageRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Counts one call for `accountId` unless that would pass `limit` (null: no cap), in
   * one statement: the upsert takes the counter row's lock, so concurrent calls are
   * serialised on it and no interleaving can admit call `limit + 1`. Returns the
   * month's count including this call, or null when the limit is already reached.
   */
  async charge(
    accountId: string,
    month: string,
    day: string,
    limit: number | null,
  ): Promise<number | null> {
    const rows = await this.db.query<{ calls: number }[]>(
      `WITH counted AS (
         INSERT INTO usage_months AS u (account_id, month, calls) VALUES ($1, $2::date, 1)
         ON CONFLICT (account_id, month) DO UPDATE SET calls = u.calls + 1
           WHERE $4::int IS NULL OR u.calls < $4::int
         RETURNING u.calls
       ), daily AS (
         INSERT INTO usage_days AS d (account_id, day, calls)
         SELECT $1, $3::date, 1 FROM counted
         ON CONFLICT (account_id, day) DO UPDATE SET calls = d.calls + 1
       )
       SELECT calls FROM counted`,
      [accountId, month, day, limit],
    );
    return rows.length ? rows[0].calls : null;
  }

  /** Gives back a call that was counted but not answered (the search failed). */
  async refund(accountId: string, month: string, day: string): Promise<void> {
    await this.db.query(
      `WITH m AS (
         UPDATE usage_months SET calls = calls - 1 WHERE account_id = $1 AND month = $2::date AND calls > 0
       )
       UPDATE usage_days SET calls = calls - 1 WHERE account_id = $1 AND day = $3::date AND calls > 0`,
      [accountId, month, day],
    );
  }

  async monthCalls(accountId: string, month: string): Promise<number> {
    const rows = await this.db.query<{ calls: number }[]>(
      `SELECT calls FROM usage_months WHERE account_id = $1 AND month = $2::date`,
      [accountId, month],
    );
    return rows[0]?.calls ?? 0;
  }

  /** Calls per day from `since` (inclusive), days without calls left out. */
  async daily(accountId: string, since: string): Promise<{ day: string; calls: number }[]> {
    return this.db.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, calls FROM usage_days
       WHERE account_id = $1 AND day >= $2::date ORDER BY day`,
      [accountId, since],
    );
  }
}
