import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { searchText } from './search-text';
import { vectorLiteral } from './vector-literal';

/**
 * A new fact's vector: computed (`embedded`), not computed yet (`pending`, while the
 * ingest finds out which facts are new), or already in the store with the fact
 * (`stored`: then only its sources are merged).
 */
export type FactVector =
  { kind: 'embedded'; vector: Float32Array } | { kind: 'pending' } | { kind: 'stored' };

export interface NewFact<V extends FactVector = FactVector> {
  question: string;
  answer: string;
  trueBy: string | null;
  sources: string[];
  dedupKey: string;
  embedding: V;
}

/** A fact ready to store: with its vector, or known to be stored already. */
export type ReadyFact = NewFact<Exclude<FactVector, { kind: 'pending' }>>;

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

/** A batch's facts disagree with the store: it is refused whole. */
export class IngestConsistencyError extends Error {}

/**
 * The facts themselves: the upsert that stores them with their provenance, and the
 * look-ups of stored facts. Ranking (RankingRepository), statistics
 * (StatisticsRepository) and upkeep of the schema (MaintenanceRepository) are apart.
 */
@Injectable()
export class FactsRepository {
  constructor(private readonly db: DataSource) {}

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
  async upsert(facts: ReadyFact[], origin: Origin): Promise<{ added: number; merged: number }> {
    const fresh = facts.filter((fact) => fact.embedding.kind === 'embedded').map(toRecord);
    const known = facts.filter((fact) => fact.embedding.kind === 'stored').map(toRecord);
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
}

const RECORD = `r(question text, answer text, true_by text, sources jsonb, dedup_key text,
  embedding text, search_question text, search_answer text)`;
const SOURCES = `ARRAY(SELECT jsonb_array_elements_text(r.sources))`;
/** Stored sources first, then the new ones not yet among them. */
const MERGED = (incoming: string) =>
  `facts.sources || ARRAY(SELECT u FROM unnest(${incoming}) u WHERE u <> ALL (facts.sources))`;

type FactRecord = ReturnType<typeof toRecord>;

function toRecord(fact: ReadyFact) {
  return {
    question: fact.question,
    answer: fact.answer,
    true_by: fact.trueBy,
    sources: fact.sources,
    dedup_key: fact.dedupKey,
    embedding: fact.embedding.kind === 'embedded' ? vectorLiteral(fact.embedding.vector) : null,
    search_question: searchText(fact.question),
    search_answer: searchText(fact.answer),
  };
}
