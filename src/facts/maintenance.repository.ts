import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig, CONFIG } from '../config/config';
import { EMBEDDING_BITS_DDL, EMBEDDING_INDEX, TERMS_INDEX } from './schema';
import { vectorLiteral } from './vector-literal';

/** Stored vectors come from another model than the configured one. */
export class StoreModelError extends Error {}

/** A database handle: the pool, or one transaction of `MaintenanceRepository.transaction`. */
type Queryable = DataSource | EntityManager;

/** One transaction of `MaintenanceRepository.transaction`, for callers that know no SQL. */
export type Transaction = EntityManager;

/**
 * The upkeep of the facts tables' schema, in SQL: the embedding column's type and
 * model, the side column a re-embedding fills, and the search indexes. It never
 * embeds: MaintenanceService brings the vectors.
 */
@Injectable()
export class MaintenanceRepository {
  constructor(
    private readonly db: DataSource,
    @Inject(CONFIG) private readonly config: AppConfig,
  ) {}

  /** Runs `work` in one transaction, to pass to the methods that take one. */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /**
   * Makes sure stored vectors and the configured encoder agree, since vectors of two
   * models are not comparable. An empty store takes the configured model's length; a
   * store of another model's vectors is refused with the command that converts it.
   */
  async adoptModel(model: string, dimensions: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [stored] = await tx.query<{ model: string | null; dimensions: number; any: boolean }[]>(
        `SELECT embedding_model AS model, embedding_dimensions AS dimensions,
                EXISTS (SELECT 1 FROM facts) AS any
         FROM corpus_stats FOR UPDATE`,
      );
      if (stored.model === model && stored.dimensions === dimensions) return;
      if (stored.any && !(stored.model === null && stored.dimensions === dimensions)) {
        throw new StoreModelError(
          `The store's facts were embedded by ${stored.model ?? 'an unrecorded model'} ` +
            `(${stored.dimensions} dimensions), but the service is set to ${model} ` +
            `(${dimensions}). Run \`bin/freshfacts reembed\` to re-embed them, or set ` +
            `FRESHFACTS_EMBEDDER back.`,
        );
      }
      if (stored.dimensions !== dimensions) {
        await changeEmbeddingColumn(tx, [
          `ALTER TABLE facts ALTER COLUMN embedding TYPE vector(${Number(dimensions)}) USING NULL`,
        ]);
      }
      await recordModel(tx, model, dimensions);
    });
  }

  /** A new, empty side column `embedding_next` for a re-embedding to fill. */
  async addNextEmbedding(dimensions: number): Promise<void> {
    await this.db.query(`ALTER TABLE facts DROP COLUMN IF EXISTS embedding_next`);
    await this.db.query(
      `ALTER TABLE facts ADD COLUMN embedding_next vector(${Number(dimensions)})`,
    );
  }

  /** The next facts after id `last` in id order; `pending`: only those without a next vector. */
  questionsAfter(
    last: string,
    pending: boolean,
    db: Queryable = this.db,
  ): Promise<{ id: string; question: string }[]> {
    const where = pending ? 'embedding_next IS NULL' : 'true';
    return db.query<{ id: string; question: string }[]>(
      `SELECT id::text, question FROM facts WHERE id > $1::bigint AND ${where}
           ORDER BY id LIMIT 2000`,
      [last],
    );
  }

  /** Writes the next vectors of the facts `ids`, in order. */
  async writeNextEmbeddings(
    ids: string[],
    vectors: Float32Array[],
    db: Queryable = this.db,
  ): Promise<void> {
    await db.query(
      `UPDATE facts SET embedding_next = v.embedding::vector
           FROM unnest($1::bigint[], $2::text[]) AS v(id, embedding) WHERE facts.id = v.id`,
      [ids, vectors.map(vectorLiteral)],
    );
  }

  /** Swaps the filled side column in for the embedding, of `model`, and indexes it. */
  async swapInNextEmbedding(tx: EntityManager, model: string, dimensions: number): Promise<void> {
    await changeEmbeddingColumn(tx, [
      `ALTER TABLE facts DROP COLUMN embedding`,
      `ALTER TABLE facts RENAME COLUMN embedding_next TO embedding`,
      `ALTER TABLE facts ALTER COLUMN embedding SET NOT NULL`,
    ]);
    await recordModel(tx, model, dimensions);
    await this.giveBuildMemory(tx, dimensions);
    await tx.query(`CREATE INDEX ${EMBEDDING_INDEX}`);
  }

  /**
   * Bulk loads into an empty store skip the search indexes and build them once at the
   * end, 2–3 times faster than maintaining them row by row; first the facts are laid
   * out in date order, so that a date window's facts share pages. An interrupted load
   * leaves the indexes missing; start-up puts them back.
   */
  async finishBulkLoad(dimensions: number): Promise<void> {
    await this.db.query(`CLUSTER facts USING facts_true_by_idx`);
    // Rewritten pages are not yet marked all-visible: index-only scans need that.
    await this.db.query(`VACUUM ANALYZE facts`);
    await this.ensureSearchIndexes(dimensions);
    // The load's WAL is no longer needed once it is all in the tables (a server's
    // own checkpoints see to that there, and need a privileged role to ask for).
    if (!this.config.databaseUrl) await this.db.query(`CHECKPOINT`);
  }

  /** Builds the search indexes that are missing (of vectors of `dimensions`). */
  async ensureSearchIndexes(dimensions: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [{ missing }] = await tx.query<{ missing: boolean }[]>(
        `SELECT to_regclass('facts_embedding_idx') IS NULL
             OR to_regclass('fact_terms_term_idx') IS NULL AS missing`,
      );
      if (!missing) return;
      await this.giveBuildMemory(tx, dimensions);
      await tx.query(`CREATE INDEX IF NOT EXISTS ${TERMS_INDEX}`);
      await tx.query(`CREATE INDEX IF NOT EXISTS ${EMBEDDING_INDEX}`);
    });
  }

  /** Drops the search indexes, for a bulk load to build them once at its end. */
  async dropSearchIndexes(): Promise<void> {
    await this.db.query(`DROP INDEX IF EXISTS facts_embedding_idx`);
    await this.db.query(`DROP INDEX IF EXISTS fact_terms_term_idx`);
  }

  /**
   * The HNSW graph is built in memory; once it outgrows maintenance_work_mem the build
   * goes on on disk, several times slower (a 100k-fact rebuild on a server: 25.5 s at
   * PostgreSQL's default 64 MB, 10.7 s in memory). The build's own transaction gets
   * what its facts need, not every session.
   */
  private async giveBuildMemory(tx: EntityManager, dimensions: number): Promise<void> {
    const [{ n }] = await tx.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM facts`);
    const mb =
      this.config.indexMemoryMb ?? indexBuildMemoryMb(n, dimensions, !this.config.databaseUrl);
    await tx.query(`SET LOCAL maintenance_work_mem = '${Math.round(mb)}MB'`);
  }
}

/**
 * Memory in MB that building the search indexes of `facts` vectors of `dimensions`
 * needs: pgvector's graph takes the vector and about 800 bytes of neighbour lists and
 * bookkeeping per fact (it spilled after 52,703 128-d facts at 64 MB), plus a quarter
 * for the term index's sort. PGlite's memory is capped at 2 GiB.
 */
export function indexBuildMemoryMb(facts: number, dimensions: number, embedded: boolean): number {
  const mb = Math.ceil((facts * (4 * dimensions + 800) * 1.25) / 2 ** 20);
  return Math.min(Math.max(mb, 64), embedded ? 1200 : Infinity);
}

/**
 * Runs `statements` that replace or retype the embedding column, without its HNSW
 * index (rebuilt by the caller or at start-up) and without the bits generated from
 * it, which cannot change under them and are generated again afterwards.
 */
async function changeEmbeddingColumn(tx: EntityManager, statements: string[]): Promise<void> {
  await tx.query(`DROP INDEX IF EXISTS facts_embedding_idx`);
  await tx.query(`ALTER TABLE facts DROP COLUMN embedding_bits`);
  for (const statement of [...statements, ...EMBEDDING_BITS_DDL]) await tx.query(statement);
}

function recordModel(tx: EntityManager, model: string, dimensions: number): Promise<unknown> {
  return tx.query(`UPDATE corpus_stats SET embedding_model = $1, embedding_dimensions = $2`, [
    model,
    dimensions,
  ]);
}
