import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig, CONFIG } from '../config/config';
import { ReadReplicas } from '../database/read-replicas';
import { EMBEDDER, Embedder } from '../embeddings/embedder';
import { EMBEDDING_BITS_DDL } from '../../migrations/1764374400000-EmbeddingBits';
import { FILL_FACT_MONTHS } from '../../migrations/1764460800000-FactMonths';
import { Ranking } from './ranking';
import { candidateStatement, rankingStatement, WindowPath } from './ranking-sql';
import { searchText } from './search-text';

export interface NewFact {
  question: string;
  answer: string;
  trueBy: string | null;
  sources: string[];
  dedupKey: string;
  /** Null for a fact already stored: then only its sources are merged. */
  embedding: Float32Array | null;
}

/** Where a batch of facts came from: a facts file or an upstream source. */
export interface Origin {
  /** `file:///…` of a facts file, the source's URL, or the admin credential that pushed. */
  origin: string;
  kind: 'file' | 'values' | 'push' | 'feed' | 'page' | 'wikidata' | 'sparql';
  sourceId?: string;
}

export interface FactOrigin {
  origin: string;
  kind: string;
  source_id: string | null;
  /** False when the source has been removed since. */
  source_active: boolean;
  first_at: Date;
  last_at: Date;
}

export interface StoredFact {
  id: string;
  question: string;
  answer: string;
  true_by: string | null;
  sources: string[];
  created_at: Date;
  updated_at: Date;
  origins?: FactOrigin[];
}

export interface FactSearch {
  query: string;
  vector: Float32Array;
  k: number;
  timeline: boolean;
  /** Inclusive lower bound, `YYYY-MM-DD`. */
  minDay?: string;
  /** Inclusive upper bound, `YYYY-MM-DD`. */
  maxDay?: string;
}

export interface ScoredFact {
  question: string;
  answer: string;
  true_by: string | null;
  sources: string[];
  score: number;
  /** Whether it matched closely; false for the nearest facts returned when none did. */
  close: boolean;
}

/** Stored vectors come from another model than the configured one. */
export class StoreModelError extends Error {}

/** A batch's facts disagree with the store: it is refused whole. */
export class IngestConsistencyError extends Error {}

/** The only code that speaks SQL to the facts tables. */
@Injectable()
export class FactsRepository implements OnApplicationBootstrap {
  /** Facts per month of `true_by`, to size date windows without a query. */
  private months: { start: number; end: number; facts: number }[] = [];
  /** Facts with a `true_by`: all that a date window's walk of the graph passes over. */
  private dated = 0;

  constructor(
    private readonly db: DataSource,
    private readonly reads: ReadReplicas,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.checkEmbeddingModel === false) return;
    await this.analyseNeverAnalysed();
    await this.adoptModel();
    await this.ensureSearchIndexes();
    await this.countMonths();
  }

  /**
   * The planner reads a table never analysed as ten pages of rows: the one-row
   * `corpus_stats` was taken for 1,110, which made a search's estimate cross
   * jit_above_cost on a server. Stores made before `refreshStats` analysed every
   * table the ranking statement reads are analysed once here.
   */
  private async analyseNeverAnalysed(): Promise<void> {
    const rows = await this.db.query<{ name: string }[]>(
      `SELECT relname AS name FROM pg_class
       WHERE relname = ANY ($1::text[]) AND relkind = 'r' AND reltuples < 0
         AND relnamespace = to_regnamespace(current_schema())`,
      [STATS_TABLES],
    );
    if (rows.length) {
      await this.db.query(`ANALYZE ${rows.map((row) => row.name).join(', ')}`);
    }
  }

  /** Reloads the month counts that size date windows (after a retraction or restore too). */
  async countMonths(): Promise<void> {
    const rows = await this.db.query<{ month: string; facts: number }[]>(
      `SELECT to_char(month, 'YYYY-MM') AS month, facts FROM fact_months`,
    );
    this.months = rows.map(({ month, facts }) => ({
      start: Date.parse(`${month}-01`),
      end: Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1),
      facts,
    }));
    this.dated = rows.reduce((sum, row) => sum + row.facts, 0);
  }

  /** About how many facts fall between the bounds (inclusive days), from the month counts. */
  windowRows(minDay?: string, maxDay?: string): number {
    const from = minDay ? Date.parse(minDay) : -Infinity;
    const to = maxDay ? Date.parse(maxDay) + DAY : Infinity;
    let rows = 0;
    for (const { start, end, facts } of this.months) {
      const overlap = Math.min(end, to) - Math.max(start, from);
      if (overlap > 0) rows += (facts * overlap) / (end - start);
    }
    return rows;
  }

  /**
   * Makes sure stored vectors and the configured encoder agree, since vectors of two
   * models are not comparable. An empty store takes the configured model's length; a
   * store of another model's vectors is refused with the command that converts it.
   */
  async adoptModel(): Promise<void> {
    const { model, dimensions } = this.embedder;
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

  /**
   * Re-embeds every stored question with the configured model, in batches into a
   * side column, then swaps it in with one transaction: an interrupted run leaves the
   * store as it was, and the next run starts over.
   */
  async reembed(onProgress: (done: number, total: number) => void): Promise<number> {
    const { model, dimensions } = this.embedder;
    const total = await this.count();
    await this.db.query(`ALTER TABLE facts DROP COLUMN IF EXISTS embedding_next`);
    await this.db.query(
      `ALTER TABLE facts ADD COLUMN embedding_next vector(${Number(dimensions)})`,
    );
    const fill = async (db: DataSource | EntityManager, where: string) => {
      let done = 0;
      for (let last = '0'; ;) {
        const rows = await db.query<{ id: string; question: string }[]>(
          `SELECT id::text, question FROM facts WHERE id > $1::bigint AND ${where}
           ORDER BY id LIMIT 2000`,
          [last],
        );
        if (rows.length === 0) return done;
        const vectors = await this.embedder.embed(rows.map((row) => row.question));
        await db.query(
          `UPDATE facts SET embedding_next = v.embedding::vector
           FROM unnest($1::bigint[], $2::text[]) AS v(id, embedding) WHERE facts.id = v.id`,
          [rows.map((row) => row.id), vectors.map(vectorLiteral)],
        );
        last = rows[rows.length - 1].id;
        done += rows.length;
        onProgress(done, total);
      }
    };
    await fill(this.db, 'true');
    return this.db.transaction(async (tx) => {
      // Facts written meanwhile by another process of a server database.
      await fill(tx, 'embedding_next IS NULL');
      await changeEmbeddingColumn(tx, [
        `ALTER TABLE facts DROP COLUMN embedding`,
        `ALTER TABLE facts RENAME COLUMN embedding_next TO embedding`,
        `ALTER TABLE facts ALTER COLUMN embedding SET NOT NULL`,
      ]);
      await recordModel(tx, model, dimensions);
      await this.giveBuildMemory(tx);
      await tx.query(`CREATE INDEX ${HNSW_INDEX}`);
      return total;
    });
  }

  /**
   * Bulk loads into an empty store skip the search indexes and build them once at the
   * end, 2–3 times faster than maintaining them row by row; first the facts are laid
   * out in date order, so that a date window's facts share pages. An interrupted load
   * leaves the indexes missing; start-up puts them back.
   */
  async finishBulkLoad(): Promise<void> {
    await this.db.query(`CLUSTER facts USING facts_true_by_idx`);
    // Rewritten pages are not yet marked all-visible: index-only scans need that.
    await this.db.query(`VACUUM ANALYZE facts`);
    await this.ensureSearchIndexes();
    // The load's WAL is no longer needed once it is all in the tables (a server's
    // own checkpoints see to that there, and need a privileged role to ask for).
    if (!this.config.databaseUrl) await this.db.query(`CHECKPOINT`);
  }

  async ensureSearchIndexes(): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [{ missing }] = await tx.query<{ missing: boolean }[]>(
        `SELECT to_regclass('facts_embedding_idx') IS NULL
             OR to_regclass('fact_terms_term_idx') IS NULL AS missing`,
      );
      if (!missing) return;
      await this.giveBuildMemory(tx);
      await tx.query(
        `CREATE INDEX IF NOT EXISTS fact_terms_term_idx ON fact_terms (term)
         INCLUDE (fact_id, true_by, in_question)`,
      );
      await tx.query(`CREATE INDEX IF NOT EXISTS ${HNSW_INDEX}`);
    });
  }

  /**
   * The HNSW graph is built in memory; once it outgrows maintenance_work_mem the build
   * goes on on disk, several times slower (a 100k-fact rebuild on a server: 25.5 s at
   * PostgreSQL's default 64 MB, 10.7 s in memory). The build's own transaction gets
   * what its facts need, not every session.
   */
  private async giveBuildMemory(tx: EntityManager): Promise<void> {
    const [{ n }] = await tx.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM facts`);
    const mb =
      this.config.indexMemoryMb ??
      indexBuildMemoryMb(n, this.embedder.dimensions, !this.config.databaseUrl);
    await tx.query(`SET LOCAL maintenance_work_mem = '${Math.round(mb)}MB'`);
  }

  async dropSearchIndexes(): Promise<void> {
    await this.db.query(`DROP INDEX IF EXISTS facts_embedding_idx`);
    await this.db.query(`DROP INDEX IF EXISTS fact_terms_term_idx`);
  }

  async count(): Promise<number> {
    const [row] = await this.db.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM facts`);
    return row.n;
  }

  /** The subset of `keys` already stored. */
  async existingKeys(keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.db.query<{ dedup_key: string }[]>(
      `SELECT dedup_key FROM facts WHERE dedup_key = ANY($1::char(64)[])`,
      [keys],
    );
    return new Set(rows.map((row) => row.dedup_key));
  }

  /**
   * Inserts new facts and merges the sources of known ones, and records `origin` for
   * each, all in one transaction. `facts` must have distinct dedup keys.
   */
  async upsert(facts: NewFact[], origin: Origin): Promise<{ added: number; merged: number }> {
    const fresh = facts.filter((fact) => fact.embedding !== null).map(toRecord);
    const known = facts.filter((fact) => fact.embedding === null).map(toRecord);
    return this.db.transaction(async (tx) => {
      const inserted = fresh.length ? await this.insert(tx, fresh) : { ids: [], added: 0 };
      const merged = known.length ? await this.mergeSources(tx, known) : [];
      // Facts are never deleted, so a fact taken as stored must be found. A 1M bench
      // ingest once lost a whole batch this way without a word (bench/README.md, "What
      // is left"): now the batch fails and nothing of it is written.
      if (merged.length !== known.length) {
        throw new IngestConsistencyError(
          `${known.length - merged.length} of ${known.length} facts taken as already ` +
            `stored are not in the store; the batch was not written`,
        );
      }
      await this.recordOrigin(tx, [...inserted.ids, ...merged], origin);
      // Kept exact with every batch, not only at the refresh after an ingest, so that the
      // corpus status need not count a million rows. Last, so its row lock is brief.
      if (inserted.added > 0) {
        await tx.query(`UPDATE corpus_stats SET facts = facts + $1`, [inserted.added]);
      }
      return { added: inserted.added, merged: facts.length - inserted.added };
    });
  }

  /** Inserts facts; one that a concurrent writer stored meanwhile is merged instead. */
  private async insert(tx: EntityManager, records: FactRecord[]) {
    const rows = await tx.query<{ id: string; inserted: boolean }[]>(
      `WITH stored AS (
         INSERT INTO facts (question, answer, true_by, sources, dedup_key, embedding, search_text)
         SELECT r.question, r.answer, r.true_by::date, ${SOURCES}, r.dedup_key, r.embedding::vector,
                setweight(to_tsvector('english', r.search_question), 'A') ||
                setweight(to_tsvector('english', r.search_answer), 'B')
         FROM jsonb_to_recordset($1::jsonb) AS ${RECORD}
         ON CONFLICT (dedup_key) DO UPDATE
           SET sources = ${MERGED('EXCLUDED.sources')}, updated_at = now()
         RETURNING id, true_by, search_text, (xmax = 0) AS inserted
       ), terms AS (
         INSERT INTO fact_terms (term, fact_id, true_by, in_question)
         SELECT u.lexeme, s.id, s.true_by, 'A' = ANY (u.weights)
         FROM stored s, unnest(s.search_text) u WHERE s.inserted
       )
       SELECT id::text, inserted FROM stored`,
      [JSON.stringify(records)],
    );
    // Each record is inserted or merged, and either way answers a row: fewer rows mean
    // facts that went nowhere (a reply cut short once lost a whole 1M-bench batch).
    if (rows.length !== records.length) {
      throw new IngestConsistencyError(
        `${records.length - rows.length} of ${records.length} new facts were not stored; ` +
          `the batch was not written`,
      );
    }
    return { ids: rows.map((row) => row.id), added: rows.filter((row) => row.inserted).length };
  }

  private async mergeSources(tx: EntityManager, records: FactRecord[]): Promise<string[]> {
    // TypeORM answers an UPDATE with [rows, count].
    const [rows] = await tx.query<[{ id: string }[], number]>(
      `UPDATE facts SET sources = ${MERGED(SOURCES)}, updated_at = now()
       FROM jsonb_to_recordset($1::jsonb) AS ${RECORD}
       WHERE facts.dedup_key = r.dedup_key
       RETURNING facts.id`,
      [JSON.stringify(records)],
    );
    return rows.map((row) => row.id);
  }

  private async recordOrigin(tx: EntityManager, ids: string[], origin: Origin): Promise<void> {
    if (ids.length === 0) return;
    await tx.query(
      `INSERT INTO fact_origins (fact_id, origin, kind, source_id)
       SELECT id, $2, $3, $4::bigint FROM unnest($1::bigint[]) AS id
       ON CONFLICT (fact_id, origin) DO UPDATE
         SET last_at = now(), source_id = coalesce(EXCLUDED.source_id, fact_origins.source_id)`,
      [ids, origin.origin, origin.kind, origin.sourceId ?? null],
    );
  }

  /** One stored fact with where and when it was ingested; undefined when there is none. */
  async show(id: string): Promise<StoredFact | undefined> {
    const [fact] = await this.db.query<StoredFact[]>(
      `SELECT id::text, question, answer, to_char(true_by, 'YYYY-MM-DD') AS true_by, sources,
              created_at, updated_at
       FROM facts WHERE id = $1::bigint`,
      [id],
    );
    if (!fact) return undefined;
    fact.origins = await this.db.query<FactOrigin[]>(
      `SELECT o.origin, o.kind, o.source_id::text, s.url IS NOT NULL AS source_active,
              o.first_at, o.last_at
       FROM fact_origins o LEFT JOIN sources s ON s.id = o.source_id
       WHERE o.fact_id = $1::bigint ORDER BY o.first_at, o.origin`,
      [id],
    );
    return fact;
  }

  /** Facts whose question contains `text` (case-insensitive), newest first. */
  async find(text: string, limit: number): Promise<StoredFact[]> {
    const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.db.query<StoredFact[]>(
      `SELECT id::text, question, answer, to_char(true_by, 'YYYY-MM-DD') AS true_by, sources,
              created_at, updated_at
       FROM facts WHERE question ILIKE $1 ORDER BY true_by DESC NULLS LAST, id LIMIT $2`,
      [pattern, limit],
    );
  }

  /** Recomputes the document frequencies that weigh query terms. Derived data only. */
  async refreshStats(): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(`DELETE FROM lexeme_stats`);
      await tx.query(
        `INSERT INTO lexeme_stats (lexeme, ndoc)
         SELECT term, count(*) FROM fact_terms GROUP BY term`,
      );
      await tx.query(`UPDATE corpus_stats SET facts = (SELECT count(*) FROM facts)`);
      await tx.query(`DELETE FROM fact_months`);
      await tx.query(FILL_FACT_MONTHS);
    });
    // The term and day indexes answer from the index alone only for pages VACUUM has
    // marked all-visible (PGlite runs no autovacuum); ANALYZE gives the planner the
    // sizes of every table the ranking statement reads, the small ones too (a server's
    // autovacuum would analyse the one-row corpus_stats only after 50 updates).
    await this.db.query(`VACUUM ANALYZE fact_terms`);
    await this.db.query(`VACUUM ANALYZE facts`);
    await this.db.query(`ANALYZE lexeme_stats, corpus_stats, fact_months`);
    await this.countMonths();
  }

  /**
   * Ranks facts for one question in one statement: lexical candidates (IDF-weighted
   * term coverage over the tsvector) and semantic candidates (pgvector cosine), both
   * inside the date bounds, fused into one score; then the close-match cut, the
   * order, and `k`. When no fact matches closely, the `k` nearest are returned.
   * The statement's stages: ranking-sql.ts.
   */
  async search(search: FactSearch, ranking: Ranking): Promise<ScoredFact[]> {
    const [sql, params] = rankingStatement(search, ranking, this.windowPath(search, ranking));
    // A search may be answered by a streaming replica (DATABASE_REPLICA_URLS).
    const rows = await this.reads.query<ScoredFact[]>(sql, params);
    return rows.map((row) => ({ ...row, score: Number(row.score) }));
  }

  /**
   * The plan PostgreSQL runs `search` with, as EXPLAIN ANALYZE prints it: the statement
   * prepared and executed as a session of the service runs it (a generic plan, with
   * the session settings), so that the plans of both stores can be read and compared.
   */
  async explain(search: FactSearch, ranking: Ranking): Promise<string> {
    const [sql, params] = rankingStatement(search, ranking, this.windowPath(search, ranking));
    const runner = this.db.createQueryRunner();
    await runner.connect();
    try {
      await runner.query(`PREPARE freshfacts_explain AS ${sql}`);
      try {
        // EXECUTE takes no bound parameters: its arguments go in as literals.
        const [{ execute }] = (await runner.query(
          `SELECT format('EXECUTE freshfacts_explain(%s)', string_agg(quote_literal(v), ', '))
             AS execute FROM unnest($1::text[]) v`,
          [params.map((p) => (Array.isArray(p) ? `{${p.join(',')}}` : String(p)))],
        )) as { execute: string }[];
        const plan = (await runner.query(`EXPLAIN (ANALYZE, SUMMARY) ${execute}`)) as Record<
          string,
          string
        >[];
        return plan.map((row) => Object.values(row)[0]).join('\n');
      } finally {
        await runner.query(`DEALLOCATE freshfacts_explain`);
      }
    } finally {
      await runner.release();
    }
  }

  /** How the semantic side reaches a search's date window (see ranking-sql.ts). */
  private windowPath(search: FactSearch, ranking: Ranking): WindowPath {
    if (!search.minDay && !search.maxDay) return 'none';
    const rows = this.windowRows(search.minDay, search.maxDay);
    return rows <= Math.sqrt(ranking.scanWindowFactor * this.dated) ? 'scan' : 'wide';
  }

  /**
   * The candidates of `search` with both relevance signals apart, before fusion and
   * cut: what `eval --sweep` calibrates the ranking on.
   */
  async candidates(search: FactSearch, ranking: Ranking): Promise<Candidate[]> {
    const path = this.windowPath(search, ranking);
    const [sql, params] = candidateStatement(search, ranking, path);
    const rows = await this.db.query<Candidate[]>(
      `${sql} SELECT id::text, question, answer, true_by, cos, lex FROM scored`,
      params,
    );
    return rows.map((row) => ({ ...row, cos: Number(row.cos), lex: Number(row.lex) }));
  }
}

export interface Candidate {
  id: string;
  question: string;
  answer: string;
  true_by: string | null;
  cos: number;
  lex: number;
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

/** The tables the ranking statement reads (and `fact_months`, which sizes its windows). */
const STATS_TABLES = ['facts', 'fact_terms', 'lexeme_stats', 'corpus_stats', 'fact_months'];

const RECORD = `r(question text, answer text, true_by text, sources jsonb, dedup_key text,
  embedding text, search_question text, search_answer text)`;
const DAY = 86_400_000;
const HNSW_INDEX = `facts_embedding_idx ON facts USING hnsw (embedding vector_cosine_ops)`;

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

/** pgvector's text form of a vector, for statements that take vectors as text. */
function vectorLiteral(vector: Float32Array): string {
  return `[${Array.from(vector).join(',')}]`;
}
const SOURCES = `ARRAY(SELECT jsonb_array_elements_text(r.sources))`;
/** Stored sources first, then the new ones not yet among them. */
const MERGED = (incoming: string) =>
  `facts.sources || ARRAY(SELECT u FROM unnest(${incoming}) u WHERE u <> ALL (facts.sources))`;

type FactRecord = ReturnType<typeof toRecord>;

function toRecord(fact: NewFact) {
  return {
    question: fact.question,
    answer: fact.answer,
    true_by: fact.trueBy,
    sources: fact.sources,
    dedup_key: fact.dedupKey,
    embedding: fact.embedding ? vectorLiteral(fact.embedding) : null,
    search_question: searchText(fact.question),
    search_answer: searchText(fact.answer),
  };
}
