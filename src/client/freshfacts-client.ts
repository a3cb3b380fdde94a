/**
 * A typed client of the freshfacts API. It needs only `fetch`, so it runs on Node 20+,
 * in browsers and in edge runtimes; it imports nothing at run time.
 */

/** A dated, sourced fact. */
export interface Fact {
  question: string;
  answer: string;
  /** `YYYY-MM-DD`, the day the fact was known true; null when the source gives none. */
  true_by: string | null;
  sources: string[];
}

/** The body of POST /api/research. */
export interface ResearchRequest {
  /** One focused question about one topic. */
  query: string;
  /** Your model as `<vendor>/<model_name>`: only facts after its training cutoff. */
  model_id?: string;
  /** Number of facts, clamped to 10..100; default 20. */
  k?: number;
  /** true (default): newest first; false: most relevant first. */
  timeline?: boolean;
}

/** The body of POST /v1/search: the research parameters and a date window. */
export interface SearchRequest extends ResearchRequest {
  /** ISO 8601 date or datetime (no offset: UTC); replaces the model floor. */
  true_by_min?: string;
  /** ISO 8601 date or datetime; must be after `true_by_min`. */
  true_by_max?: string;
}

/** What a call returned besides the facts. */
export interface CallInfo {
  /** The cutoff of `model_id` that set the floor, `unknown`, or undefined without model_id. */
  modelCutoff?: string;
  /** Calls left this month on a free plan (from the `RateLimit` header). */
  remaining?: number;
}

export interface SearchResponse extends CallInfo {
  results: Fact[];
}

export interface ResearchResponse extends CallInfo {
  research_guidance: Fact[];
}

/** An RFC 9457 problem: the body of every error the service answers. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** On 422: each invalid field, e.g. `{"loc": ["body", "k"], "msg": "k must be an integer"}`. */
  errors?: { loc: (string | number)[]; msg: string }[];
  /** On a quota refusal: the page where the plan is upgraded. */
  billing_url?: string;
  [extension: string]: unknown;
}

/** The service refused a call; `problem` says why. */
export class FreshfactsError extends Error {
  constructor(
    readonly problem: Problem,
    readonly headers: Headers,
  ) {
    super(`${problem.title}: ${problem.detail}`);
    this.name = 'FreshfactsError';
  }

  get status(): number {
    return this.problem.status;
  }
}

export interface FreshfactsClientOptions {
  /** Where the service is, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** An `ff_live_…` key; leave it out when `fetch` pays per call (see payingFetch). */
  apiKey?: string;
  /** The fetch to call with; default the global one. */
  fetch?: typeof fetch;
  /** How many times a 503 is retried; default 2. */
  retries?: number;
  /** First wait when a 503 carries no Retry-After, doubled each time; default 500 ms. */
  backoffMs?: number;
  /** A longer Retry-After than this is not waited for: the error is thrown; default 30 s. */
  maxRetryDelayMs?: number;
}

/**
 * ```ts
 * import { FreshfactsClient } from 'freshfacts/client';
 * const client = new FreshfactsClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: KEY });
 * const { results } = await client.search({ query: 'Who coaches Calcio Catania?' });
 * ```
 */
export class FreshfactsClient {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: FreshfactsClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    // Called unbound, a browser's fetch throws "Illegal invocation".
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** POST /v1/search: dated, sourced facts for one question. */
  async search(request: SearchRequest, init?: { signal?: AbortSignal }): Promise<SearchResponse> {
    const [body, info] = await this.post<{ results: Fact[] }>('/v1/search', request, init);
    return { ...info, results: body.results };
  }

  /** POST /api/research: the older endpoint, without a date window. */
  async research(
    request: ResearchRequest,
    init?: { signal?: AbortSignal },
  ): Promise<ResearchResponse> {
    const [body, info] = await this.post<{ research_guidance: Fact[] }>(
      '/api/research',
      request,
      init,
    );
    return { ...info, research_guidance: body.research_guidance };
  }

  private async post<T>(
    path: string,
    request: object,
    init: { signal?: AbortSignal } = {},
  ): Promise<[T, CallInfo]> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const body = JSON.stringify(request);
    for (let attempt = 0; ; attempt++) {
      const res = await this.fetch(`${this.baseUrl}${path}`, {
        method: 'POST',
        headers,
        body,
        signal: init.signal,
      });
      if (res.ok) return [(await res.json()) as T, callInfo(res.headers)];
      const delay = res.status === 503 ? this.retryDelay(res.headers, attempt) : undefined;
      if (delay === undefined) throw new FreshfactsError(await problemOf(res), res.headers);
      await res.body?.cancel();
      await sleep(delay, init.signal);
    }
  }

  /** How long to wait before retrying a 503, or undefined to give up. */
  private retryDelay(headers: Headers, attempt: number): number | undefined {
    const { retries = 2, backoffMs = 500, maxRetryDelayMs = 30_000 } = this.options;
    if (attempt >= retries) return undefined;
    const delay = retryAfterMs(headers.get('retry-after')) ?? backoffMs * 2 ** attempt;
    return delay <= maxRetryDelayMs ? delay : undefined;
  }
}

/** Retry-After as seconds or as an HTTP date, in milliseconds from now. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function callInfo(headers: Headers): CallInfo {
  const info: CallInfo = {};
  const cutoff = headers.get('freshfacts-model-cutoff');
  if (cutoff) info.modelCutoff = cutoff;
  const remaining = /;r=(\d+)/.exec(headers.get('ratelimit') ?? '');
  if (remaining) info.remaining = Number(remaining[1]);
  return info;
}

/** The problem body, or one made from the status when a proxy answered instead. */
async function problemOf(res: Response): Promise<Problem> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as Partial<Problem>;
    if (typeof body.title === 'string' && typeof body.status === 'number') return body as Problem;
  } catch {
    // Not JSON: described below.
  }
  return {
    type: 'about:blank',
    title: res.statusText || `HTTP ${res.status}`,
    status: res.status,
    detail: text.slice(0, 500),
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
}
