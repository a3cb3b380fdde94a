import { MigrationInterface, QueryRunner } from 'typeorm';

/** Passwords and sessions for the dashboard, and what the Stripe integration remembers. */
export const DASHBOARD_DDL = [
  // Null for accounts an operator made with `keys create`: they cannot log in.
  `ALTER TABLE accounts ADD COLUMN password_hash text`,
  `ALTER TABLE accounts ADD COLUMN stripe_customer_id text`,
  `ALTER TABLE accounts ADD COLUMN stripe_subscription_id text
     CONSTRAINT accounts_stripe_subscription UNIQUE`,
  // A session is found by the SHA-256 of its cookie, so a leaked table opens no session.
  `CREATE TABLE sessions (
     token_hash char(64) PRIMARY KEY,
     account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
     csrf_token text NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     expires_at timestamptz NOT NULL
   )`,
  `CREATE INDEX sessions_account_idx ON sessions (account_id)`,
  // Login attempts per address in the current window, cleared by a success: the
  // login throttle's counter.
  `CREATE TABLE login_attempts (
     email text PRIMARY KEY,
     attempts integer NOT NULL,
     window_start timestamptz NOT NULL
   )`,
  // Stripe delivers an event at least once; a delivery seen before is acknowledged and skipped.
  `CREATE TABLE stripe_events (
     id text PRIMARY KEY,
     type text NOT NULL,
     received_at timestamptz NOT NULL DEFAULT now()
   )`,
];

export class Dashboard1763942400000 implements MigrationInterface {
  name = 'Dashboard1763942400000';

  async up(db: QueryRunner): Promise<void> {
    for (const statement of DASHBOARD_DDL) await db.query(statement);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['stripe_events', 'login_attempts', 'sessions']) {
      await db.query(`DROP TABLE IF EXISTS ${table}`);
    }
    for (const column of ['stripe_subscription_id', 'stripe_customer_id', 'password_hash']) {
      await db.query(`ALTER TABLE accounts DROP COLUMN IF EXISTS ${column}`);
    }
  }
}
