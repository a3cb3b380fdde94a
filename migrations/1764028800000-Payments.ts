import { MigrationInterface, QueryRunner } from 'typeorm';

/** Challenge ids of settled payments: a credential is spent once, across every replica. */
export const PAYMENTS_DDL = [
  `CREATE TABLE payment_spends (
     challenge_id text PRIMARY KEY,
     expires_at timestamptz NOT NULL,
     spent_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE INDEX payment_spends_expires_idx ON payment_spends (expires_at)`,
];

export class Payments1764028800000 implements MigrationInterface {
  name = 'Payments1764028800000';

  async up(db: QueryRunner): Promise<void> {
    for (const statement of PAYMENTS_DDL) await db.query(statement);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE IF EXISTS payment_spends`);
  }
}
