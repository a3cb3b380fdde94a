import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each question's values by day, newest first: one question asked of many dates (a
 * city's population, year by year) shares one vector and one set of terms, so the
 * ranking reaches such a series by its newest values (`candidateSql`).
 */
export class FactSeries1764547200000 implements MigrationInterface {
  name = 'FactSeries1764547200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE INDEX facts_series_idx ON facts (md5(question), true_by DESC NULLS LAST)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX facts_series_idx`);
  }
}
