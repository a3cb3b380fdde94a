import type { FetchSettings, SparqlSettings } from '../../config/config';
import { Fetcher, FetchError } from '../fetcher';
import { factsOfResult, SparqlFacts, SparqlResultError } from './sparql-results';

const RESULT_TYPE = 'application/sparql-results+json';

/**
 * Asks SPARQL endpoints as their operators ask clients to: one query at a time from
 * this process, a User-Agent naming the service, a timeout and a size cap, no retry
 * of a query that failed (the source is retried later), and after a 429 nothing at
 * all until its Retry-After has passed.
 */
export class SparqlClient {
  private readonly fetcher: Fetcher;
  private queue: Promise<unknown> = Promise.resolve();
  private pausedUntil = 0;

  constructor(settings: SparqlSettings, fetch: FetchSettings) {
    this.fetcher = new Fetcher({
      ...fetch,
      timeoutMs: settings.timeoutMs,
      maxBytes: settings.maxBytes,
      retries: 0,
    });
  }

  /** The facts that `query` selects at `endpoint`; throws FetchError or SparqlResultError. */
  select(endpoint: string, query: string): Promise<SparqlFacts> {
    const run = this.queue.then(() => this.send(endpoint, query));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async send(endpoint: string, query: string): Promise<SparqlFacts> {
    const wait = this.pausedUntil - Date.now();
    if (wait > 0) {
      throw new FetchError(
        `the endpoint asked for a pause; ${Math.ceil(wait / 1000)} s left`,
        wait,
      );
    }
    let fetched;
    try {
      fetched = await this.fetcher.post(endpoint, new URLSearchParams({ query }), RESULT_TYPE);
    } catch (err) {
      if (err instanceof FetchError && err.retryAfterMs) {
        this.pausedUntil = Date.now() + err.retryAfterMs;
      }
      throw err;
    }
    if (!/^application\/(sparql-results\+)?json\b/i.test(fetched.contentType)) {
      throw new SparqlResultError(
        `malformed result: content type "${fetched.contentType}", not ${RESULT_TYPE}`,
      );
    }
    return factsOfResult(fetched.body.toString('utf8'));
  }
}
