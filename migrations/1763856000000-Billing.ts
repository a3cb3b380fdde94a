import { MigrationInterface, QueryRunner } from 'typeorm';

/** Plans on accounts and the usage counters the monthly quota is checked against. */
export const BILLING_DDL = [
  `ALTER TABLE accounts ADD COLUMN plan text NOT NULL DEFAULT 'free'
     CONSTRAINT accounts_plan CHECK (plan IN ('free', 'paid'))`,
  // One row per account and calendar month (UTC): the quota's counter.
  `CREATE TABLE usage_months (
     account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
     month date NOT NULL,
     calls integer NOT NULL,
     PRIMARY KEY (account_id, month)
   )`,
  // One row per account and day (UTC): what the usage chart shows.
  `CREATE TABLE usage_days (
     account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
     day date NOT NULL,
     calls integer NOT NULL,
     PRIMARY KEY (account_id, day)
   )`,
];

export class Billing1763856000000 implements MigrationInterface {
  name = 'Billing1763856000000';

  async up(db: QueryRunner): Promise<void> {
    for (const statement of BILLING_DDL) await db.query(statement);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE IF EXISTS usage_days`);
    await db.query(`DROP TABLE IF EXISTS usage_months`);
    await db.query(`ALTER TABLE accounts DROP COLUMN IF EXISTS plan`);
  }
}
