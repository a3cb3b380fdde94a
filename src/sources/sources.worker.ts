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
  /** A pass started by `kick`, not yet finished. */
  private kicked?: Promise<void>;
  /** A kick came while a kicked pass ran: it may have looked already, so look again. */
  private again = false;

  constructor(private readonly sources: SourcesService) {}

  /** Polls in the background until the application shuts down. */
  start(): void {
    this.running ??= this.poll(this.stop.signal, (report) =>
      this.logger.log(`source ${report.source.id} ${report.source.url}: ${report.status}`),
    );
  }

  /**
   * One pass over the due sources now, in the background (an operator's "run now"):
   * the caller does not wait for fetches that may take minutes. A pass already under
   * way takes up newly due sources itself.
   */
  kick(): void {
    if (this.stop.signal.aborted) return;
    if (this.kicked) {
      this.again = true;
      return;
    }
    this.kicked = this.sources
      .runDue({
        onReport: (report) => this.logger.log(`source ${report.source.id}: ${report.status}`),
      })
      .then(
        () => undefined,
        (err: Error) => this.logger.error(`sources run: ${err.message}`),
      )
      .finally(() => {
        this.kicked = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /**
   * Before the database closes: the source in hand is finished first, so that its
   * lease is given back.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stop.abort();
    await Promise.all([this.running, this.kicked]);
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
