import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ReadReplicas } from '../database/read-replicas';
import { Ranking } from './ranking';
import {
  candidateStatement,
  FactSearch,
  questionWords,
  rankingStatement,
  WindowPath,
} from './ranking-sql';

export type { FactSearch };
import { StatisticsRepository } from './statistics.repository';

export interface ScoredFact {
  question: string;
  answer: string;
  true_by: string | null;
  sources: string[];
  score: number;
  /** Whether it matched closely; false for the nearest facts returned when none did. */
  close: boolean;
}

export interface Candidate {
  id: string;
  question: string;
  answer: string;
  true_by: string | null;
  cos: number;
  lex: number;
  /** The query terms it holds, with their weight (`terms` in ranking-sql.ts). */
  held: Record<string, number>;
  /** The weight of the query's naming words among them (`QueryForm.names`). */
  named: number;
  /** Those naming words (the rest of `held` is the query's relation, as it words it). */
  namedTerms: string[];
  /** How many terms the query has: at most `shortQuestionTerms` makes it short. */
  queryTerms: number;
  /**
   * Its question's words beyond the query's, numbers aside, with their IDF: how it
   * words its relation (`questionWords` in ranking-sql.ts; the best match's make the
   * CTE `template`).
   */
  wording: Record<string, number>;
}

/** Runs the ranking statements that ranking-sql.ts builds: searches, their plans, candidates. */
@Injectable()
export class RankingRepository {
  constructor(
    private readonly db: DataSource,
    private readonly reads: ReadReplicas,
    private readonly statistics: StatisticsRepository,
  ) {}

  /**
   * Ranks facts for one question in one statement: lexical candidates (IDF-weighted
   * term coverage over the tsvector) and semantic candidates (pgvector cosine), both
   * inside the date bounds, fused into one score; then the close-match cut, the
   * order, and `k`. When no fact matches closely, the `k` nearest are returned.
   * The statement's stages: ranking-sql.ts.
   */
  async search(search: FactSearch, ranking: Ranking): Promise<ScoredFact[]> {
    const [sql, params] = this.statement(search, ranking);
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
    const [sql, params] = this.statement(search, ranking);
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

  /**
   * Runs `search` on every connection that may answer searches (`ReadReplicas.warm`),
   * once as each distinct statement a search can be: for each of `ks`, without dates
   * and on both window paths with a lower bound, an upper bound and both. Each text is
   * planned and kept per connection, so each must run once; the dates differ only in
   * what they read (a narrow window for the scan, a wide one for the walk).
   */
  async warm(search: FactSearch, ks: number[], ranking: Ranking): Promise<void> {
    const day = (daysAgo: number) =>
      new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    // A scanned window is few facts (`windowPath`): the last month, or nothing before
    // the first day there is; a walked one is the last ten years.
    const windows: [WindowPath, Pick<FactSearch, 'minDay' | 'maxDay'>][] = [
      ['none', {}],
      ['scan', { minDay: day(30), maxDay: day(0) }],
      ['scan', { minDay: day(30) }],
      ['scan', { maxDay: '0001-01-01' }],
      ['wide', { minDay: day(3650), maxDay: day(0) }],
      ['wide', { minDay: day(3650) }],
      ['wide', { maxDay: day(0) }],
    ];
    const statements = ks.flatMap((k) =>
      windows.map(([path, window]) =>
        rankingStatement(
          { ...search, k, minDay: undefined, maxDay: undefined, ...window },
          this.atScale(ranking),
          path,
        ),
      ),
    );
    await this.reads.warm(statements);
  }

  /** The ranking statement of `search` as the store's size and the window path make it. */
  private statement(search: FactSearch, ranking: Ranking): [string, unknown[]] {
    return rankingStatement(search, this.atScale(ranking), this.windowPath(search, ranking));
  }

  /**
   * `ranking` without the commoner terms' boost (`Ranking.termBoostShare`) while the
   * selecting terms' budget is at its floor of facts: there it is a larger share of the
   * corpus than the share (all of it at 2,000 facts, 2% at 100k), and the boost cost
   * 20–35% of the statement at 100k for one dev query more. The dated facts stand for
   * the corpus, as they do for the window paths.
   */
  private atScale(ranking: Ranking): Ranking {
    if (this.statistics.datedFacts * ranking.termFactsShare > ranking.termFactsBudget)
      return ranking;
    return { ...ranking, termBoostShare: 0 };
  }

  /** How the semantic side reaches a search's date window (see ranking-sql.ts). */
  private windowPath(search: FactSearch, ranking: Ranking): WindowPath {
    if (!search.minDay && !search.maxDay) return 'none';
    const rows = this.statistics.windowRows(search.minDay, search.maxDay);
    return rows <= Math.sqrt(ranking.scanWindowFactor * this.statistics.datedFacts)
      ? 'scan'
      : 'wide';
  }

  /**
   * The candidates of `search` with both relevance signals apart, before fusion and
   * cut: what `eval --sweep` calibrates the ranking on.
   */
  async candidates(search: FactSearch, ranking: Ranking): Promise<Candidate[]> {
    const path = this.windowPath(search, ranking);
    const [sql, params] = candidateStatement(search, this.atScale(ranking), path);
    const rows = await this.db.query<Candidate[]>(
      `${sql} SELECT id::text, question, answer, true_by, cos, lex, named,
         (SELECT coalesce(jsonb_object_agg(t.lexeme, t.weight), '{}') FROM terms t
          WHERE t.lexeme = ANY (f.held)) AS held,
         ARRAY(SELECT t.lexeme FROM terms t WHERE t.named AND t.lexeme = ANY (f.held)) AS "namedTerms",
         (SELECT count(*) FROM terms)::int AS "queryTerms",
         (SELECT coalesce(jsonb_object_agg(w.lexeme, w.idf), '{}')
          FROM ${questionWords('f.search_text')} w) AS wording
       FROM scored f`,
      params,
    );
    return rows.map((row) => ({
      ...row,
      cos: Number(row.cos),
      lex: Number(row.lex),
      named: Number(row.named),
    }));
  }
}
