import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { PlanName } from '../accounts/plans';
import { sha256 } from '../common/constant-time';

export const SESSION_DAYS = 14;

/** A signed-in browser: who it is and the token its forms must carry. */
export interface Session {
  accountId: string;
  email: string;
  plan: PlanName;
  csrfToken: string;
}

/**
 * Dashboard sessions, kept in the store so that every replica sees a logout. The
 * cookie holds 256 random bits; only their SHA-256 is stored.
 */
@Injectable()
export class SessionsRepository {
  constructor(private readonly db: DataSource) {}

  /** Opens a session and returns the cookie value. */
  async open(accountId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.db.query(
      `INSERT INTO sessions (token_hash, account_id, csrf_token, expires_at)
       VALUES ($1, $2, $3, now() + make_interval(days => $4))`,
      [sha256(token), accountId, randomBytes(32).toString('base64url'), SESSION_DAYS],
    );
    // Expired sessions are dropped here rather than by a timer every replica would run.
    await this.db.query(`DELETE FROM sessions WHERE account_id = $1 AND expires_at < now()`, [
      accountId,
    ]);
    return token;
  }

  async find(token: string): Promise<Session | undefined> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
    const rows: { account_id: string; email: string; plan: PlanName; csrf_token: string }[] =
      await this.db.query(
        `SELECT s.account_id, a.email, a.plan, s.csrf_token
           FROM sessions s JOIN accounts a ON a.id = s.account_id
          WHERE s.token_hash = $1 AND s.expires_at > now()`,
        [sha256(token)],
      );
    if (!rows.length) return undefined;
    const [row] = rows;
    return {
      accountId: String(row.account_id),
      email: row.email,
      plan: row.plan,
      csrfToken: row.csrf_token,
    };
  }

  async close(token: string): Promise<void> {
    await this.db.query(`DELETE FROM sessions WHERE token_hash = $1`, [sha256(token)]);
  }
}
