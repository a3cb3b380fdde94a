import { Inject, Injectable } from '@nestjs/common';
import { CachedEmbedder } from '../embeddings/cached.embedder';
import { MetricsService } from '../metrics/metrics.service';
import { EMBEDDER, Embedder, EmbeddingError } from '../embeddings/embedder';
import { DomainError } from '../common/problem';
import { nextDay, parseInstant, utcDay } from '../common/dates';
import { FactDto } from '../facts/fact.dto';
import { FactSearch, RankingRepository } from '../facts/ranking.repository';
import { ModelCutoffs } from '../models/model-cutoffs';
import { Ranking, rankingFor } from '../facts/ranking';

export const DEFAULT_K = 20;
export const MIN_K = 10;
export const MAX_K = 100;

export interface FactQuery {
  query: string;
  model_id?: string;
  k?: number;
  timeline?: boolean;
  true_by_min?: string;
  true_by_max?: string;
}

export interface FactAnswer {
  facts: FactDto[];
  /** Fused relevance of each fact, for `eval`; never sent to callers. */
  scores: number[];
  /** The model's cutoff day, `unknown`, or undefined when no model_id was sent. */
  modelCutoff?: string;
  /**
   * `close` when the facts match the question closely; `nearest` when none did and the
   * nearest were returned instead (or no fact satisfies the date bounds at all).
   */
  match: Match;
}

export type Match = 'close' | 'nearest';

/** The engine behind both endpoints: bounds from the request, ranking in the store. */
@Injectable()
export class SearchService {
  private readonly queryEmbedder: Embedder;

  constructor(
    private readonly facts: RankingRepository,
    private readonly cutoffs: ModelCutoffs,
    @Inject(EMBEDDER) embedder: Embedder,
    private readonly metrics: MetricsService,
  ) {
    this.queryEmbedder = new CachedEmbedder(embedder);
  }

  async find(
    request: FactQuery,
    ranking: Ranking = rankingFor(this.queryEmbedder.model),
  ): Promise<FactAnswer> {
    this.metrics.searches.inc();
    const model = request.model_id ? this.cutoffs.lookup(request.model_id) : undefined;
    const rows = await this.facts.search(await this.factSearch(request, model), ranking);
    return {
      scores: rows.map((row) => row.score),
      facts: rows.map(({ question, answer, true_by, sources }) => ({
        question,
        answer,
        true_by,
        sources,
      })),
      modelCutoff: request.model_id ? (model?.cutoff ?? 'unknown') : undefined,
      match: rows.length > 0 && rows[0].close ? 'close' : 'nearest',
    };
  }

  /**
   * Readies every connection that may answer a search before the first caller comes:
   * loads the encoder, and runs the ranking statement on each connection in every
   * form a search can take (`RankingRepository.warm`) for the k most calls ask for
   * (the least, the default, the most), which on the embedded store also gives V8
   * the time to optimise PGlite's WASM.
   */
  async warm(): Promise<void> {
    const search = await this.factSearch({ query: 'Who won the most recent election?' }, undefined);
    await this.facts.warm(search, [MIN_K, DEFAULT_K, MAX_K], rankingFor(this.queryEmbedder.model));
  }

  /** The store's plan of the ranking statement for `request` (`facts explain`). */
  async explain(request: FactQuery): Promise<string> {
    const model = request.model_id ? this.cutoffs.lookup(request.model_id) : undefined;
    const ranking = rankingFor(this.queryEmbedder.model);
    return this.facts.explain(await this.factSearch(request, model), ranking);
  }

  private async factSearch(
    request: FactQuery,
    model: { cutoff: string } | undefined,
  ): Promise<FactSearch> {
    const min = parseInstant(request.true_by_min);
    const max = parseInstant(request.true_by_max);
    const [vector] = await this.queryEmbedder.embed([request.query]).catch((err: unknown) => {
      throw err instanceof EmbeddingError ? new EmbedderUnavailableError(err.message) : err;
    });
    return {
      query: request.query,
      vector,
      k: clampK(request.k),
      timeline: request.timeline ?? true,
      // An explicit lower bound replaces the model floor; the floor excludes the cutoff day.
      minDay: min ? utcDay(min) : model ? nextDay(model.cutoff) : undefined,
      maxDay: max ? utcDay(max) : undefined,
    };
  }
}

/** The embedder (a remote API, when configured) failed: the caller may retry. */
export class EmbedderUnavailableError extends DomainError {
  constructor(reason: string) {
    super(
      'embedder-unavailable',
      'Embedder unavailable',
      `The question could not be embedded: ${reason}.`,
      {},
      {
        'Retry-After': '5',
      },
    );
  }
}

export function clampK(k: number | undefined): number {
  return Math.min(MAX_K, Math.max(MIN_K, k ?? DEFAULT_K));
}
