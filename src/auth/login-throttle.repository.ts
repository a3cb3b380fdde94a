import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Attempts allowed per address within one window before logins are refused. */
export const LOGIN_ATTEMPTS = 5;
export const LOGIN_WINDOW_MINUTES = 15;

/** Counts login attempts per address in the store, so every replica sees the same count. */
@Injectable()
export class LoginThrottleRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Takes one attempt for `email`. Counting the attempt before the password is
   * checked, in one statement, means concurrent guesses cannot slip past the limit.
   * Returns 0 when the attempt may go ahead, else the seconds until the window ends.
   */
  async take(email: string): Promise<number> {
    const rows: { attempts: number; retry_after: number }[] = await this.db.query(
      `INSERT INTO login_attempts AS a (email, attempts, window_start) VALUES ($1, 1, now())
       ON CONFLICT (email) DO UPDATE SET
         attempts = CASE WHEN a.window_start <= now() - make_interval(mins => $2)
                         THEN 1 ELSE a.attempts + 1 END,
         window_start = CASE WHEN a.window_start <= now() - make_interval(mins => $2)
                             THEN now() ELSE a.window_start END
       RETURNING attempts,
         ceil(extract(epoch FROM a.window_start + make_interval(mins => $2) - now()))::int
           AS retry_after`,
      [email, LOGIN_WINDOW_MINUTES],
    );
    const { attempts, retry_after } = rows[0];
    // A concurrent attempt may have opened the window a moment after this statement's
    // now(): the wait never exceeds one window.
    const wait = Math.min(Math.max(1, retry_after), LOGIN_WINDOW_MINUTES * 60);
    return attempts > LOGIN_ATTEMPTS ? wait : 0;
  }

  /** A successful login forgets the address's attempts (and any long-stale ones). */
  async clear(email: string): Promise<void> {
    await this.db.query(
      `DELETE FROM login_attempts WHERE email = $1 OR window_start < now() - interval '1 day'`,
      [email],
    );
  }
}
