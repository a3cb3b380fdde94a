import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig, CONFIG } from '../config/config';
import { EMBEDDER, Embedder } from '../embeddings/embedder';
import { FactsRepository } from './facts.repository';
import { MaintenanceRepository, Transaction } from './maintenance.repository';
import { StatisticsRepository } from './statistics.repository';

type Progress = (done: number, total: number) => void;

/**
 * Keeps the store fit for the configured encoder: readies it at start-up (statistics,
 * the model of its vectors, the search indexes), re-embeds it after the encoder
 * changes, and builds the indexes after a bulk load.
 */
@Injectable()
export class MaintenanceService implements OnApplicationBootstrap {
  constructor(
    private readonly maintenance: MaintenanceRepository,
    private readonly statistics: StatisticsRepository,
    private readonly facts: FactsRepository,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.checkEmbeddingModel === false) return;
    await this.statistics.analyseNeverAnalysed();
    await this.adoptModel();
    await this.ensureSearchIndexes();
    await this.statistics.countMonths();
  }

  /**
   * Makes sure stored vectors and the configured encoder agree (vectors of two models
   * are not comparable); throws StoreModelError when they do not and cannot.
   */
  adoptModel(): Promise<void> {
    return this.maintenance.adoptModel(this.embedder.model, this.embedder.dimensions);
  }

  /**
   * Re-embeds every stored question with the configured model, in batches into a
   * side column, then swaps it in with one transaction: an interrupted run leaves the
   * store as it was, and the next run starts over.
   */
  async reembed(onProgress: Progress): Promise<number> {
    const { model, dimensions } = this.embedder;
    const total = await this.facts.count();
    await this.maintenance.addNextEmbedding(dimensions);
    await this.fillNext(false, total, onProgress);
    return this.maintenance.transaction(async (tx) => {
      // Facts written meanwhile by another process of a server database.
      await this.fillNext(true, total, onProgress, tx);
      await this.maintenance.swapInNextEmbedding(tx, model, dimensions);
      return total;
    });
  }

  /** Embeds questions into the side column in batches; `pending`: only those still without. */
  private async fillNext(
    pending: boolean,
    total: number,
    onProgress: Progress,
    tx?: Transaction,
  ): Promise<number> {
    let done = 0;
    for (let last = '0'; ;) {
      const rows = await this.maintenance.questionsAfter(last, pending, tx);
      if (rows.length === 0) return done;
      const vectors = await this.embedder.embed(rows.map((row) => row.question));
      const ids = rows.map((row) => row.id);
      await this.maintenance.writeNextEmbeddings(ids, vectors, tx);
      last = ids[ids.length - 1];
      done += rows.length;
      onProgress(done, total);
    }
  }

  /** Lays a bulk load out in date order and builds the search indexes it went without. */
  finishBulkLoad(): Promise<void> {
    return this.maintenance.finishBulkLoad(this.embedder.dimensions);
  }

  /** Builds the search indexes that are missing (after an interrupted bulk load). */
  ensureSearchIndexes(): Promise<void> {
    return this.maintenance.ensureSearchIndexes(this.embedder.dimensions);
  }

  /** Drops the search indexes before a bulk load into an empty store. */
  dropSearchIndexes(): Promise<void> {
    return this.maintenance.dropSearchIndexes();
  }
}
