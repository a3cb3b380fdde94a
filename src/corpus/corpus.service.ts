import { Injectable } from '@nestjs/common';
import { SOURCE_KINDS } from '../sources/sources.repository';
import { CorpusRepository } from './corpus.repository';

/** The registered sources of one kind and when one of them last ran without failing. */
export interface SourceKindStatus {
  kind: string;
  sources: number;
  /** ISO 8601 instant of the latest run that did not fail (an unchanged source counts), or null. */
  last_success_at: string | null;
}

/** How much the store holds and how current it is. */
export interface CorpusStatus {
  facts: number;
  /** The newest `true_by` of any stored fact, `YYYY-MM-DD`; null when none is dated. */
  newest_true_by: string | null;
  /** Every source kind the service knows, also those with no source registered. */
  sources: SourceKindStatus[];
}

/** Says how fresh the store is, for `GET /v1/corpus`, the dashboard and other front ends. */
@Injectable()
export class CorpusService {
  constructor(private readonly corpus: CorpusRepository) {}

  /** Exact counts, read from the store at each call. */
  async status(): Promise<CorpusStatus> {
    const [totals, runs] = await Promise.all([this.corpus.totals(), this.corpus.sourceRuns()]);
    const byKind = new Map(runs.map((run) => [run.kind, run]));
    const kinds = [...new Set([...SOURCE_KINDS, ...byKind.keys()])].sort();
    return {
      ...totals,
      sources: kinds.map((kind) => {
        const run = byKind.get(kind);
        return {
          kind,
          sources: run?.sources ?? 0,
          last_success_at: run?.last_ok_at ? new Date(run.last_ok_at).toISOString() : null,
        };
      }),
    };
  }
}
