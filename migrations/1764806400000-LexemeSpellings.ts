import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The corpus's words by their one-letter deletions, so that a search can find a word's
 * look-alikes one letter away with a few index probes (`spellings` in
 * src/facts/ranking-sql.ts). Derived from `lexeme_stats` and refreshed with it after
 * every ingest; filled here once for a store that has facts. Frozen history: the
 * refresh fills it from its own copy (src/facts/schema.ts).
 */
export class LexemeSpellings1764806400000 implements MigrationInterface {
  name = 'LexemeSpellings1764806400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE TABLE lexeme_spellings (
         variant text NOT NULL,
         lexeme text NOT NULL,
         PRIMARY KEY (variant, lexeme)
       )`,
    );
    await db.query(
      `INSERT INTO lexeme_spellings (variant, lexeme)
       SELECT DISTINCT overlay(s.lexeme placing '' from i for 1), s.lexeme
       FROM lexeme_stats s, generate_series(1, length(s.lexeme)) i
       WHERE length(s.lexeme) >= 5 AND s.lexeme ~ '^[a-z]+$'`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE lexeme_spellings`);
  }
}
