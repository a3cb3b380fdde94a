import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface FactTotals {
  facts: number;
  /** `YYYY-MM-DD`, or null when no stored fact carries a date. */
  newest_true_by: string | null;
}

export interface SourceKindRuns {
  kind: string;
  sources: number;
  last_ok_at: Date | null;
}

/** The only code that speaks SQL for the corpus status. */
@Injectable()
export class CorpusRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Counted from the facts themselves: `corpus_stats` and `fact_months` are refreshed
   * only after an ingest completes, so during a long dump ingest, or after one that
   * failed part-way, they lag behind the facts a search already finds.
   */
  async totals(): Promise<FactTotals> {
    const [row] = await this.db.query<FactTotals[]>(
      `SELECT count(*)::int AS facts, to_char(max(true_by), 'YYYY-MM-DD') AS newest_true_by
       FROM facts`,
    );
    return row;
  }

  /** Registered sources per kind and the latest run of one that did not fail. */
  sourceRuns(): Promise<SourceKindRuns[]> {
    return this.db.query<SourceKindRuns[]>(
      `SELECT kind, count(*)::int AS sources, max(last_ok_at) AS last_ok_at
       FROM sources GROUP BY kind ORDER BY kind`,
    );
  }
}
