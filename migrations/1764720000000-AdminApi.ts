import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retracted facts and the operators' audit trail. A retraction moves the fact out of
 * `facts` (and its terms out of `fact_terms`) into `retracted_facts`, so that no
 * statement that reads facts, the ranking first, has to learn to skip it; the row
 * keeps what a restore needs to put the fact back as it was, under the same id.
 */
export class AdminApi1764720000000 implements MigrationInterface {
  name = 'AdminApi1764720000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE retracted_facts (
        id bigint PRIMARY KEY,
        question text NOT NULL,
        answer text NOT NULL,
        true_by date,
        sources text[] NOT NULL,
        -- Ingest skips a fact with this identity while it is retracted.
        dedup_key char(64) NOT NULL CONSTRAINT retracted_facts_dedup_key UNIQUE,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        -- fact_origins rows as they were: [{origin, kind, source_id, first_at, last_at}].
        origins jsonb NOT NULL,
        reason text NOT NULL,
        retracted_at timestamptz NOT NULL DEFAULT now(),
        -- Which admin credential retracted it (an id derived from it, never the secret).
        retracted_by text NOT NULL
      )`);
    await db.query(`
      CREATE TABLE admin_events (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        action text NOT NULL,
        target text NOT NULL,
        actor text NOT NULL,
        detail jsonb NOT NULL DEFAULT '{}'
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE admin_events`);
    await db.query(`DROP TABLE retracted_facts`);
  }
}
