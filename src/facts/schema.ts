/**
 * The facts tables' DDL that the service itself runs again: the search indexes (rebuilt
 * after a bulk load and at start-up when missing), the bits generated from the
 * embedding (generated again whenever the embedding column changes), and the fill of
 * the month counts. The one live copy: migrations hold their own frozen copies of what
 * they ran, and test/facts/schema.e2e-spec.ts fails when the two build different
 * schemas.
 */

/** The HNSW index over question vectors, as `CREATE INDEX [IF NOT EXISTS] …` continues. */
export const EMBEDDING_INDEX = `facts_embedding_idx ON facts USING hnsw (embedding vector_cosine_ops)`;

/** The covering index a query's lexical candidates come from, index-only. */
export const TERMS_INDEX = `fact_terms_term_idx ON fact_terms (term)
         INCLUDE (fact_id, true_by, in_question)`;

/**
 * The one-bit-per-dimension copy of each vector and the day index that carries it:
 * run again after the embedding column is replaced or retyped.
 */
export const EMBEDDING_BITS_DDL = [
  `ALTER TABLE facts ADD COLUMN embedding_bits bit varying
     GENERATED ALWAYS AS (binary_quantize(embedding)::bit varying) STORED`,
  `CREATE INDEX facts_day_bits_idx ON facts (true_by) INCLUDE (id, embedding_bits)`,
];

/** Counts facts per month of `true_by` into the emptied `fact_months`. */
export const FILL_FACT_MONTHS = `INSERT INTO fact_months (month, facts)
  SELECT date_trunc('month', true_by)::date, count(*) FROM facts
  WHERE true_by IS NOT NULL GROUP BY 1`;

/**
 * Fills the emptied `lexeme_spellings`: each word of five letters or more by its
 * one-letter deletions ("dicelss", "dceless", … for "diceless"), which a misspelling one
 * letter away shares (`spellings` in ranking-sql.ts).
 */
export const FILL_LEXEME_SPELLINGS = `INSERT INTO lexeme_spellings (variant, lexeme)
  SELECT DISTINCT overlay(s.lexeme placing '' from i for 1), s.lexeme
  FROM lexeme_stats s, generate_series(1, length(s.lexeme)) i
  WHERE length(s.lexeme) >= 5 AND s.lexeme ~ '^[a-z]+$'`;

/**
 * Fills the emptied `series_questions`: the questions asked of more than one fact, whose
 * other values a search looks up (`series` in ranking-sql.ts).
 */
export const FILL_SERIES_QUESTIONS = `INSERT INTO series_questions (hash)
  SELECT md5(question) FROM facts GROUP BY 1 HAVING count(*) > 1`;
