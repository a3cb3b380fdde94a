import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { FactOrigin, StoredFact } from './facts.repository';
import { searchText } from './search-text';

/** Why, when and by whom a fact was taken back. */
export interface Retraction {
  reason: string;
  retracted_at: Date;
  /** The admin credential's id (or `cli`), never a secret. */
  retracted_by: string;
}

export interface RetractedFact extends StoredFact {
  dedup_key: string;
  retraction: Retraction;
}

const COLUMNS = `r.id::text, r.question, r.answer, to_char(r.true_by, 'YYYY-MM-DD') AS true_by,
  r.sources, r.dedup_key, r.created_at, r.updated_at, r.origins, r.reason, r.retracted_at,
  r.retracted_by`;

interface Row extends Omit<StoredFact, 'origins'> {
  dedup_key: string;
  origins: (Omit<FactOrigin, 'first_at' | 'last_at' | 'source_active'> & {
    first_at: string;
    last_at: string;
  })[];
  reason: string;
  retracted_at: Date;
  retracted_by: string;
}

/**
 * The only code that speaks SQL to `retracted_facts`. A retraction moves a fact, its
 * terms and its provenance out of the tables searches read, and keeps the statistics
 * the ranking weighs by (term frequencies, month counts, the fact count) as an ingest
 * leaves them; a restore moves it all back. Each is one transaction.
 */
@Injectable()
export class RetractionsRepository {
  constructor(private readonly db: DataSource) {}

  /** Whether a live fact, a retracted one, or nothing has this id. */
  async state(id: string): Promise<'live' | 'retracted' | 'missing'> {
    const [row] = await this.db.query<{ live: boolean; retracted: boolean }[]>(
      `SELECT EXISTS (SELECT 1 FROM facts WHERE id = $1::bigint) AS live,
              EXISTS (SELECT 1 FROM retracted_facts WHERE id = $1::bigint) AS retracted`,
      [id],
    );
    return row.live ? 'live' : row.retracted ? 'retracted' : 'missing';
  }

  /** The subset of `keys` that are retracted facts' identities. */
  async retractedKeys(keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.db.query<{ dedup_key: string }[]>(
      `SELECT dedup_key FROM retracted_facts WHERE dedup_key = ANY($1::char(64)[])`,
      [keys],
    );
    return new Set(rows.map((row) => row.dedup_key));
  }

  /** Moves a live fact out of the store; false when no live fact has this id. */
  async retract(id: string, reason: string, by: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const moved = await tx.query<{ true_by: string | null }[]>(
        `INSERT INTO retracted_facts (id, question, answer, true_by, sources, dedup_key,
           created_at, updated_at, origins, reason, retracted_by)
         SELECT f.id, f.question, f.answer, f.true_by, f.sources, f.dedup_key, f.created_at,
                f.updated_at,
                coalesce((SELECT jsonb_agg(jsonb_build_object('origin', o.origin, 'kind', o.kind,
                           'source_id', o.source_id::text, 'first_at', o.first_at,
                           'last_at', o.last_at) ORDER BY o.first_at, o.origin)
                          FROM fact_origins o WHERE o.fact_id = f.id), '[]'::jsonb),
                $2, $3
         FROM facts f WHERE f.id = $1::bigint
         FOR UPDATE OF f
         RETURNING to_char(true_by, 'YYYY-MM-DD') AS true_by`,
        [id, reason, by],
      );
      if (moved.length === 0) return false;
      await tx.query(
        `WITH gone AS (DELETE FROM fact_terms WHERE fact_id = $1::bigint RETURNING term)
         UPDATE lexeme_stats SET ndoc = ndoc - 1 FROM gone WHERE lexeme = gone.term`,
        [id],
      );
      await tx.query(`DELETE FROM lexeme_stats WHERE ndoc <= 0`);
      // Its provenance goes with it (ON DELETE CASCADE); a copy is in `origins`.
      await tx.query(`DELETE FROM facts WHERE id = $1::bigint`, [id]);
      await countMonth(tx, moved[0].true_by, -1);
      await tx.query(`UPDATE corpus_stats SET facts = facts - 1`);
      return true;
    });
  }

  /**
   * Moves a retracted fact back under its id, with `embedding` as its question's
   * vector (made by the current encoder, which may have changed since); false when
   * no retracted fact has this id.
   */
  async restore(id: string, embedding: Float32Array): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<Row[]>(
        `SELECT ${COLUMNS} FROM retracted_facts r WHERE r.id = $1::bigint FOR UPDATE`,
        [id],
      );
      if (!row) return false;
      await tx.query(
        `WITH stored AS (
           INSERT INTO facts (id, question, answer, true_by, sources, dedup_key, embedding,
                              search_text, created_at, updated_at)
           SELECT r.id, r.question, r.answer, r.true_by, r.sources, r.dedup_key, $2::vector,
                  setweight(to_tsvector('english', $3), 'A') ||
                  setweight(to_tsvector('english', $4), 'B'), r.created_at, r.updated_at
           FROM retracted_facts r WHERE r.id = $1::bigint
           RETURNING id, true_by, search_text
         )
         INSERT INTO fact_terms (term, fact_id, true_by, in_question)
         SELECT u.lexeme, s.id, s.true_by, 'A' = ANY (u.weights)
         FROM stored s, unnest(s.search_text) u`,
        [
          id,
          `[${Array.from(embedding).join(',')}]`,
          searchText(row.question),
          searchText(row.answer),
        ],
      );
      await tx.query(
        `INSERT INTO lexeme_stats (lexeme, ndoc)
         SELECT term, 1 FROM fact_terms WHERE fact_id = $1::bigint
         ON CONFLICT (lexeme) DO UPDATE SET ndoc = lexeme_stats.ndoc + 1`,
        [id],
      );
      await tx.query(
        `INSERT INTO fact_origins (fact_id, origin, kind, source_id, first_at, last_at)
         SELECT r.id, o.origin, o.kind, o.source_id::bigint, o.first_at, o.last_at
         FROM retracted_facts r,
              jsonb_to_recordset(r.origins) AS o(origin text, kind text, source_id text,
                                                 first_at timestamptz, last_at timestamptz)
         WHERE r.id = $1::bigint`,
        [id],
      );
      await countMonth(tx, row.true_by, 1);
      await tx.query(`UPDATE corpus_stats SET facts = facts + 1`);
      await tx.query(`DELETE FROM retracted_facts WHERE id = $1::bigint`, [id]);
      return true;
    });
  }

  /** A retracted fact with its provenance as it was; undefined when none has this id. */
  async show(id: string): Promise<RetractedFact | undefined> {
    const [row] = await this.db.query<Row[]>(
      `SELECT ${COLUMNS} FROM retracted_facts r WHERE r.id = $1::bigint`,
      [id],
    );
    return row && (await this.withActiveSources(row));
  }

  /** Retracted facts whose question contains `text` (case-insensitive), newest first. */
  async find(text: string, limit: number): Promise<RetractedFact[]> {
    const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await this.db.query<Row[]>(
      `SELECT ${COLUMNS} FROM retracted_facts r WHERE r.question ILIKE $1
       ORDER BY r.true_by DESC NULLS LAST, r.id LIMIT $2`,
      [pattern, limit],
    );
    return Promise.all(rows.map((row) => this.withActiveSources(row)));
  }

  private async withActiveSources(row: Row): Promise<RetractedFact> {
    const ids = row.origins.map((origin) => origin.source_id).filter((id) => id !== null);
    const active = new Set(
      ids.length
        ? (
            await this.db.query<{ id: string }[]>(
              `SELECT id::text AS id FROM sources WHERE id = ANY($1::bigint[])`,
              [ids],
            )
          ).map((source) => source.id)
        : [],
    );
    const { reason, retracted_at, retracted_by, origins, ...fact } = row;
    return {
      ...fact,
      created_at: new Date(fact.created_at),
      updated_at: new Date(fact.updated_at),
      origins: origins.map((origin) => ({
        ...origin,
        source_active: origin.source_id !== null && active.has(origin.source_id),
        first_at: new Date(origin.first_at),
        last_at: new Date(origin.last_at),
      })),
      retraction: { reason, retracted_at: new Date(retracted_at), retracted_by },
    };
  }
}

/** Keeps `fact_months` as the refresh after an ingest would leave it. */
async function countMonth(tx: EntityManager, day: string | null, by: 1 | -1): Promise<void> {
  if (day === null) return;
  await tx.query(
    `INSERT INTO fact_months (month, facts) VALUES (date_trunc('month', $1::date)::date, $2)
     ON CONFLICT (month) DO UPDATE SET facts = fact_months.facts + $2`,
    [day, by],
  );
  await tx.query(`DELETE FROM fact_months WHERE facts <= 0`);
}
