import { setTimeout as sleep } from 'node:timers/promises';
import robotsParser from 'robots-parser';
import type { FetchSettings } from '../config/config';

/** What a conditional GET presents: the validators of the last good response. */
export interface Validators {
  etag?: string | null;
  lastModified?: string | null;
}

export type Fetched =
  | { status: 'not-modified' }
  | {
      status: 'ok';
      url: string;
      body: Buffer;
      contentType: string;
      etag: string | null;
      lastModified: string | null;
    };

/** A fetch that failed for good; `retryAfterMs` when the server asked for a pause. */
export class FetchError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

const ROBOTS_TTL_MS = 60 * 60 * 1000;
/** Longer pauses than this are not waited out in the run; the source is retried later. */
const MAX_INLINE_WAIT_MS = 30_000;

/**
 * HTTP GET as a well-behaved crawler does it: robots.txt first, conditional requests,
 * a user agent that names the service, a timeout and a size cap on every attempt,
 * and a few retries with exponential backoff for what may pass.
 */
export class Fetcher {
  private readonly robots = new Map<string, { rules: Robots; until: number }>();

  constructor(private readonly settings: FetchSettings) {}

  async get(url: string, validators: Validators = {}): Promise<Fetched> {
    await this.checkRobots(url);
    const headers: Record<string, string> = {};
    if (validators.etag) headers['if-none-match'] = validators.etag;
    if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
    const response = await this.attempt(url, headers);
    if (response.status === 304) {
      await response.body?.cancel();
      return { status: 'not-modified' };
    }
    return this.fetched(response, url);
  }

  /**
   * A POST of a form to an API (a SPARQL endpoint): no robots.txt, which governs
   * crawling, not calls an operator configured; the same timeout, cap and retries.
   */
  async post(
    url: string,
    form: URLSearchParams,
    accept: string,
  ): Promise<Fetched & { status: 'ok' }> {
    return this.fetched(await this.attempt(url, { accept }, form), url);
  }

  /** A successful response, its body read within the cap. */
  private async fetched(response: Response, url: string): Promise<Fetched & { status: 'ok' }> {
    return {
      status: 'ok',
      url: response.url || url,
      body: await this.read(response),
      contentType: response.headers.get('content-type') ?? '',
      etag: response.headers.get('etag'),
      lastModified: response.headers.get('last-modified'),
    };
  }

  /** The response of the first attempt that is neither a transient failure nor a 4xx. */
  private async attempt(
    url: string,
    headers: Record<string, string>,
    form?: URLSearchParams,
  ): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      const failure = await this.request(url, headers, form).then(
        async (response) => {
          if (response.ok || response.status === 304) return response;
          await response.body?.cancel();
          const error = new FetchError(`HTTP ${response.status}`, retryAfter(response));
          if (!isTransient(response.status)) throw error;
          return error;
        },
        (err: unknown) => networkError(err, this.settings.timeoutMs),
      );
      if (failure instanceof Response) return failure;
      const wait = Math.max(
        failure.retryAfterMs ?? 0,
        this.settings.backoffMs * 2 ** (attempt - 1),
      );
      if (attempt > this.settings.retries || wait > MAX_INLINE_WAIT_MS) {
        const attempts = `${attempt} attempt${attempt > 1 ? 's' : ''}`;
        throw new FetchError(`${failure.message} (${attempts})`, failure.retryAfterMs);
      }
      await sleep(wait);
    }
  }

  private request(
    url: string,
    headers: Record<string, string>,
    form?: URLSearchParams,
  ): Promise<Response> {
    return fetch(url, {
      method: form ? 'POST' : 'GET',
      body: form,
      headers: { 'user-agent': this.settings.userAgent, ...headers },
      redirect: 'follow',
      signal: AbortSignal.timeout(this.settings.timeoutMs),
    });
  }

  /** The body, refused as soon as it passes the cap (also when the length is not declared). */
  private async read(response: Response): Promise<Buffer> {
    const cap = this.settings.maxBytes;
    const declared = Number(response.headers.get('content-length'));
    if (declared > cap) {
      await response.body?.cancel();
      throw new FetchError(`larger than the ${cap}-byte limit (${declared} bytes declared)`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of (response.body ?? []) as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength;
        if (size > cap) throw new FetchError(`larger than the ${cap}-byte limit`);
        chunks.push(Buffer.from(chunk));
      }
    } catch (err) {
      if (err instanceof FetchError) throw err;
      throw networkError(err, this.settings.timeoutMs);
    }
    return Buffer.concat(chunks);
  }

  private async checkRobots(url: string): Promise<void> {
    const { origin } = new URL(url);
    let cached = this.robots.get(origin);
    if (!cached || cached.until < Date.now()) {
      cached = { rules: await this.loadRobots(origin), until: Date.now() + ROBOTS_TTL_MS };
      this.robots.set(origin, cached);
    }
    if (cached.rules.isDisallowed(url, this.settings.userAgent)) {
      throw new FetchError('disallowed by robots.txt');
    }
  }

  /**
   * robots.txt of an origin: a 4xx means no rules; a server error or no answer means
   * the site cannot say, so nothing is fetched until it can (as the major crawlers do).
   */
  private async loadRobots(origin: string): Promise<Robots> {
    const robotsUrl = `${origin}/robots.txt`;
    let response: Response;
    try {
      response = await this.attempt(robotsUrl, {});
    } catch (err) {
      const reason = err instanceof FetchError ? err.message : String(err);
      if (/^HTTP 4(?!29)\d\d/.test(reason)) return robotsParser(robotsUrl, '');
      throw new FetchError(`robots.txt unavailable: ${reason}`);
    }
    const text = (await this.read(response)).toString('utf8');
    return robotsParser(robotsUrl, text);
  }
}

type Robots = ReturnType<typeof robotsParser>;

function isTransient(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

function networkError(err: unknown, timeoutMs: number): FetchError {
  const error = err as Error & { cause?: { code?: string; message?: string } };
  if (error.name === 'TimeoutError' || error.name === 'AbortError') {
    return new FetchError(`timed out after ${timeoutMs} ms`);
  }
  const cause = error.cause?.code ?? error.cause?.message ?? error.message;
  return new FetchError(`network error: ${cause}`);
}

/** Retry-After as milliseconds, from seconds or an HTTP date. */
function retryAfter(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
