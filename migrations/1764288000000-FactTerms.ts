import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The full-text side as a term table: one row per (lexeme, fact) with the fact's
 * `true_by`, under a covering btree, so that a query's candidates come from an
 * index-only scan. Through the GIN index every matching fact cost a visit to its heap
 * page: 3,500 page visits and 10–30 ms a query at 100k facts, seconds at a million
 * (`bench/README.md`). The GIN index has no other reader and goes.
 */
export class FactTerms1764288000000 implements MigrationInterface {
  name = 'FactTerms1764288000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE fact_terms (
        term text NOT NULL,
        fact_id bigint NOT NULL,
        true_by date,
        -- In the question (tsvector weight A); otherwise only in the answer.
        in_question boolean NOT NULL
      )`);
    await db.query(`
      INSERT INTO fact_terms (term, fact_id, true_by, in_question)
      SELECT u.lexeme, f.id, f.true_by, 'A' = ANY (u.weights)
      FROM facts f, unnest(f.search_text) u`);
    await db.query(
      `CREATE INDEX fact_terms_term_idx ON fact_terms (term) INCLUDE (fact_id, true_by, in_question)`,
    );
    await db.query(`DROP INDEX facts_search_text_idx`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX facts_search_text_idx ON facts USING gin (search_text)`);
    await db.query(`DROP TABLE fact_terms`);
  }
}
