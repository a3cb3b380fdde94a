import { setTimeout as sleep } from 'node:timers/promises';
import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { SourceReport, SourcesService } from './sources.service';

/** How often an idle worker looks for due sources. */
const POLL_MS = 30_000;

/** Polls due sources until stopped: `sources run` without --once, or inside `serve`. */
@Injectable()
export class SourcesWorker implements BeforeApplicationShutdown {
  private readonly logger = new Logger(SourcesWorker.name);
  private readonly stop = new AbortController();
  private running?: Promise<void>;

  constructor(private readonly sources: SourcesService) {}

  /** Polls in the background until the application shuts down. */
  start(): void {
    this.running ??= this.poll(this.stop.signal, (report) =>
      this.logger.log(`source ${report.source.id} ${report.source.url}: ${report.status}`),
    );
  }

  /**
   * Before the database closes: the source in hand is finished first, so that its
   * lease is given back.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stop.abort();
    await this.running;
  }

  async poll(signal: AbortSignal, onReport?: (report: SourceReport) => void): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.sources.runDue({ onReport });
      } catch (err) {
        // The database is away; the next round tries again.
        this.logger.error(`sources worker: ${(err as Error).message}`);
      }
      await sleep(POLL_MS, undefined, { signal }).catch(() => undefined);
    }
  }
}
