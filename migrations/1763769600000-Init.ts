import { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts and their API keys: no extension needed, so also usable on a bare PostgreSQL. */
export const ACCOUNTS_DDL = [
  `CREATE TABLE accounts (
     id bigserial PRIMARY KEY,
     email text NOT NULL CONSTRAINT accounts_email UNIQUE,
     created_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE TABLE api_keys (
     id bigserial PRIMARY KEY,
     account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
     name text NOT NULL DEFAULT '',
     prefix text NOT NULL,
     key_hash char(64) NOT NULL CONSTRAINT api_keys_key_hash UNIQUE,
     created_at timestamptz NOT NULL DEFAULT now(),
     last_used_at timestamptz,
     revoked_at timestamptz
   )`,
  `CREATE INDEX api_keys_account_idx ON api_keys (account_id)`,
];

/**
 * Facts with their full-text and vector indexes, the term statistics the lexical
 * score needs, and the accounts that own API keys.
 */
export class Init1763769600000 implements MigrationInterface {
  name = 'Init1763769600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE EXTENSION IF NOT EXISTS vector`);
    await db.query(`
      CREATE TABLE facts (
        id bigserial PRIMARY KEY,
        question text NOT NULL,
        answer text NOT NULL,
        true_by date,
        sources text[] NOT NULL,
        dedup_key char(64) NOT NULL CONSTRAINT facts_dedup_key UNIQUE,
        -- Question (weight A) and answer (B), accent-folded by the application
        -- (src/facts/search-text.ts) so that "Perez" finds "Pérez".
        search_text tsvector NOT NULL,
        embedding vector(512) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX facts_search_text_idx ON facts USING gin (search_text)`);
    await db.query(`CREATE INDEX facts_true_by_idx ON facts (true_by)`);
    await db.query(
      `CREATE INDEX facts_embedding_idx ON facts USING hnsw (embedding vector_cosine_ops)`,
    );
    // Document frequencies for IDF weighting, refreshed after every ingest.
    await db.query(`CREATE TABLE lexeme_stats (lexeme text PRIMARY KEY, ndoc integer NOT NULL)`);
    await db.query(`
      CREATE TABLE corpus_stats (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        facts bigint NOT NULL
      )`);
    await db.query(`INSERT INTO corpus_stats (facts) VALUES (0)`);
    for (const statement of ACCOUNTS_DDL) await db.query(statement);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['api_keys', 'accounts', 'corpus_stats', 'lexeme_stats', 'facts']) {
      await db.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
