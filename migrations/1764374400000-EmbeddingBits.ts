import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A one-bit-per-dimension copy of each question vector (pgvector's `binary_quantize`),
 * kept by PostgreSQL itself, and a btree on the day that carries it: a date window is
 * ranked by Hamming distance over the index alone, and only the best few hundred facts
 * are read to rank exactly. Walking the HNSW graph instead reads a heap page for every
 * fact it passes to test its day: ~9,000 of them, 100 ms, for a 90-day window of a
 * million facts (`bench/README.md`).
 *
 * Frozen history: the service generates the column again from its own copy of this
 * DDL (src/facts/schema.ts) whenever the embedding column changes.
 */
export class EmbeddingBits1764374400000 implements MigrationInterface {
  name = 'EmbeddingBits1764374400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE facts ADD COLUMN embedding_bits bit varying
         GENERATED ALWAYS AS (binary_quantize(embedding)::bit varying) STORED`,
    );
    await db.query(
      `CREATE INDEX facts_day_bits_idx ON facts (true_by) INCLUDE (id, embedding_bits)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE facts DROP COLUMN embedding_bits`);
  }
}
