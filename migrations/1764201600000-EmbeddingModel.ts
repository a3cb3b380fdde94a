import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which model made the stored vectors, and their length. Stores made before this
 * migration hold 512-d vectors of an unrecorded model (the service then embedded with
 * USE-lite or a 512-d API); the first start adopts the configured model if it is 512-d.
 */
export class EmbeddingModel1764201600000 implements MigrationInterface {
  name = 'EmbeddingModel1764201600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE corpus_stats ADD COLUMN embedding_model text`);
    await db.query(
      `ALTER TABLE corpus_stats ADD COLUMN embedding_dimensions integer NOT NULL DEFAULT 512`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE corpus_stats DROP COLUMN embedding_model`);
    await db.query(`ALTER TABLE corpus_stats DROP COLUMN embedding_dimensions`);
  }
}
