import { MigrationInterface, QueryRunner } from 'typeorm';

export const SPARQL_SOURCES_DDL = [
  `ALTER TABLE sources ADD COLUMN query text`,
  `ALTER TABLE sources DROP CONSTRAINT sources_kind_check`,
  `ALTER TABLE sources ADD CONSTRAINT sources_kind_check
     CHECK (kind IN ('feed', 'page', 'wikidata', 'sparql'))`,
  `ALTER TABLE sources ADD CONSTRAINT sources_sparql_query
     CHECK ((kind = 'sparql') = (query IS NOT NULL))`,
];

/**
 * SPARQL sources: the query is kept in the database, so every worker (on any host) runs
 * the text that was added, whatever files it has.
 */
export class SparqlSources1764633600000 implements MigrationInterface {
  name = 'SparqlSources1764633600000';

  async up(db: QueryRunner): Promise<void> {
    for (const statement of SPARQL_SOURCES_DDL) await db.query(statement);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM sources WHERE kind = 'sparql'`);
    await db.query(`ALTER TABLE sources DROP CONSTRAINT sources_sparql_query`);
    await db.query(`ALTER TABLE sources DROP CONSTRAINT sources_kind_check`);
    await db.query(
      `ALTER TABLE sources ADD CONSTRAINT sources_kind_check
         CHECK (kind IN ('feed', 'page', 'wikidata'))`,
    );
    await db.query(`ALTER TABLE sources DROP COLUMN query`);
  }
}
