import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The questions asked of more than one fact (by `md5(question)`, as the series index
 * finds them), so that a search looks up the other values of only those of its
 * candidates' questions (`series` in src/facts/ranking-sql.ts): most questions are asked
 * once, and the lookup read each candidate's row again for nothing. Refreshed with the
 * term statistics after every ingest; filled here once. Frozen history: the refresh
 * fills it from its own copy (src/facts/schema.ts).
 */
export class SeriesQuestions1764892800000 implements MigrationInterface {
  name = 'SeriesQuestions1764892800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE series_questions (hash text PRIMARY KEY)`);
    await db.query(
      `INSERT INTO series_questions (hash)
       SELECT md5(question) FROM facts GROUP BY 1 HAVING count(*) > 1`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE series_questions`);
  }
}
