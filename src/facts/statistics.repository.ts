import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { FILL_FACT_MONTHS, FILL_LEXEME_SPELLINGS, FILL_SERIES_QUESTIONS } from './schema';

/**
 * The statistics the ranking weighs and sizes by, derived from the facts: document
 * frequencies of terms, the fact count, and facts per month of `true_by` (also held in
 * memory, to size a date window without a query). Derived data only.
 */
@Injectable()
export class StatisticsRepository {
  /** Facts per month of `true_by`, to size date windows without a query. */
  private months: { start: number; end: number; facts: number }[] = [];
  /** Facts with a `true_by`: all that a date window's walk of the graph passes over. */
  private dated = 0;

  constructor(private readonly db: DataSource) {}

  /** Facts with a `true_by`, as of the last `countMonths`. */
  get datedFacts(): number {
    return this.dated;
  }

  /**
   * The planner reads a table never analysed as ten pages of rows: the one-row
   * `corpus_stats` was taken for 1,110, which made a search's estimate cross
   * jit_above_cost on a server. Stores made before `refreshStats` analysed every
   * table the ranking statement reads are analysed once here.
   */
  async analyseNeverAnalysed(): Promise<void> {
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

  /** Recomputes the document frequencies that weigh query terms. Derived data only. */
  async refreshStats(): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(`DELETE FROM lexeme_stats`);
      await tx.query(
        `INSERT INTO lexeme_stats (lexeme, ndoc)
         SELECT term, count(*) FROM fact_terms GROUP BY term`,
      );
      await tx.query(`DELETE FROM lexeme_spellings`);
      await tx.query(FILL_LEXEME_SPELLINGS);
      await tx.query(`DELETE FROM series_questions`);
      await tx.query(FILL_SERIES_QUESTIONS);
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
    await this.db.query(
      `ANALYZE lexeme_stats, lexeme_spellings, series_questions, corpus_stats, fact_months`,
    );
    await this.countMonths();
  }
}

/** The tables the ranking statement reads (and `fact_months`, which sizes its windows). */
const STATS_TABLES = [
  'facts',
  'fact_terms',
  'lexeme_stats',
  'lexeme_spellings',
  'series_questions',
  'corpus_stats',
  'fact_months',
];

const DAY = 86_400_000;
