import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Upstream sources and the documents fetched from them. No extension needed, so the
 * worker's claim can be exercised on a bare PostgreSQL too.
 */
export const SOURCES_DDL = [
  `CREATE TABLE sources (
     id bigserial PRIMARY KEY,
     url text NOT NULL CONSTRAINT sources_url UNIQUE,
     kind text NOT NULL CHECK (kind IN ('feed', 'page', 'wikidata')),
     every_seconds integer NOT NULL CHECK (every_seconds > 0),
     next_run_at timestamptz NOT NULL DEFAULT now(),
     -- A worker holds a source until this time; a crashed worker's lease runs out.
     leased_until timestamptz,
     leased_by text,
     etag text,
     last_modified text,
     last_run_at timestamptz,
     last_ok_at timestamptz,
     last_status text,
     last_error text,
     failures integer NOT NULL DEFAULT 0,
     documents integer NOT NULL DEFAULT 0,
     facts_added integer NOT NULL DEFAULT 0,
     facts_rejected integer NOT NULL DEFAULT 0,
     created_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE INDEX sources_next_run_idx ON sources (next_run_at)`,
  // Article text kept for extraction, also when no extractor is configured yet.
  `CREATE TABLE documents (
     id bigserial PRIMARY KEY,
     source_id bigint NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
     url text NOT NULL,
     title text NOT NULL DEFAULT '',
     published_at timestamptz,
     published_day date,
     text text NOT NULL,
     content_hash char(64) NOT NULL,
     fetched_at timestamptz NOT NULL DEFAULT now(),
     extracted_at timestamptz,
     facts_added integer NOT NULL DEFAULT 0,
     facts_rejected integer NOT NULL DEFAULT 0,
     CONSTRAINT documents_url_content UNIQUE (url, content_hash)
   )`,
  `CREATE INDEX documents_pending_idx ON documents (source_id) WHERE extracted_at IS NULL`,
];

/** Sources, documents, and the provenance of every fact: where and when it was ingested. */
export class Sources1764115200000 implements MigrationInterface {
  name = 'Sources1764115200000';

  async up(db: QueryRunner): Promise<void> {
    for (const statement of SOURCES_DDL) await db.query(statement);
    // One row per fact and origin (a facts file or a source URL). The origin is kept
    // as text so that provenance outlives a removed source.
    await db.query(`
      CREATE TABLE fact_origins (
        fact_id bigint NOT NULL REFERENCES facts (id) ON DELETE CASCADE,
        origin text NOT NULL,
        kind text NOT NULL,
        -- No foreign key: a removed source is still named here (and shown as removed).
        source_id bigint,
        first_at timestamptz NOT NULL DEFAULT now(),
        last_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (fact_id, origin)
      )`);
    await db.query(`CREATE INDEX fact_origins_source_idx ON fact_origins (source_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['fact_origins', 'documents', 'sources']) {
      await db.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
