import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `corpus_stats.facts` becomes exact: from here on every ingest batch adds what it
 * inserted, in its own transaction. Before, it was set only by the refresh after a
 * whole ingest, so an ingest that failed part-way left it short; counted once here.
 */
export class CorpusCount1764637200000 implements MigrationInterface {
  name = 'CorpusCount1764637200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`UPDATE corpus_stats SET facts = (SELECT count(*) FROM facts)`);
  }

  async down(): Promise<void> {
    // The column stays; only its upkeep changed.
  }
}
