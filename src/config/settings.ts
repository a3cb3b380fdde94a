/** The shape of the service's settings; `buildConfig` (config.ts) builds them. */

/** Every setting of the service, built once from the environment at start-up (`buildConfig`). */
export type Config = DeepReadonly<Settings>;
/** The name the feature modules know `Config` by. */
export type AppConfig = Config;

/** `T` with every property, array and nested object read-only (a `URL` stays as it is). */
export type DeepReadonly<T> = T extends URL
  ? T
  : T extends readonly (infer E)[]
    ? readonly DeepReadonly<E>[]
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;

export interface Settings {
  /** Unset: the embedded PGlite database in `dataDir`. */
  databaseUrl?: string;
  /** PostgreSQL streaming replicas that may answer searches (DATABASE_REPLICA_URLS). */
  replicaUrls: string[];
  /** A replica further behind the primary than this is skipped. */
  replicaMaxLagMs: number;
  dataDir: string;
  host: string;
  port: number;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  dbPoolSize: number;
  /** Each connection keeps its statements prepared (off behind PgBouncer before 1.21). */
  dbPreparedStatements: boolean;
  /**
   * maintenance_work_mem, in MB, of the transaction that builds the search indexes;
   * unset: sized from the facts to index (`indexBuildMemoryMb`).
   */
  indexMemoryMb?: number;
  /** Facts loaded into an empty database by `serve`; empty string disables it. */
  seedFile: string;
  embedder: 'static' | 'use-lite' | 'openai';
  /** The static model's file (FRESHFACTS_STATIC_MODEL); unset: the shipped one. */
  staticModel?: string;
  /** False only for `reembed`, which opens a store of another model's vectors to convert it. */
  checkEmbeddingModel?: boolean;
  embeddingsUrl?: string;
  embeddingsModel?: string;
  embeddingsApiKey?: string;
  logLevel: 'error' | 'warn' | 'log' | 'debug';
  /** Where users reach this service; links in responses (the billing page) start with it. */
  publicUrl: string;
  /** Bearer token of the /admin endpoints; unset disables them. */
  adminToken?: string;
  /** Dashboard cookies are Secure: the service is reached over HTTPS. */
  secureCookies: boolean;
  /** Unset: self-hosted, an operator sets plans. */
  stripe?: StripeSettings;
  /** Pay per call on search (the HTTP `Payment` scheme); unset: search without a key gets 402 without a challenge. */
  payments?: PaymentSettings;
  /** How upstream sources are fetched. */
  fetch: FetchSettings;
  /** `…/w/api.php` asked for the labels of Wikidata values. */
  wikidataApiUrl: string;
  /** The SPARQL endpoint of `sparql` sources and the `wikidata` preset. */
  sparql: SparqlSettings;
  /** The fact extractor for feeds and pages; unset: their documents wait for one. */
  llm?: LlmSettings;
  /** `serve` also runs the sources worker in its own process (default: on). */
  sourcesWorker: boolean;
  /** The key `mcp --url` sends to a running service when `--key` is not given. */
  mcpApiKey?: string;
}

/** How upstream sources are fetched (`Fetcher`). */
export interface FetchSettings {
  /** Names the service and where to reach its operator. */
  userAgent: string;
  timeoutMs: number;
  maxBytes: number;
  /** Further attempts after a timeout, a network error, 408, 429 or 5xx. */
  retries: number;
  /** First wait between attempts; doubles each time. */
  backoffMs: number;
}

/** The SPARQL endpoint of `SparqlClient`. */
export interface SparqlSettings {
  /** The endpoint that sources added from now on query (SPARQL 1.1 Protocol). */
  url: string;
  /** Somewhat longer than the endpoint's own limit (Wikidata's: 60 s), to hear its verdict. */
  timeoutMs: number;
  maxBytes: number;
}

export interface LlmSettings {
  /** Base URL of an OpenAI-compatible API (`POST {url}/chat/completions`). */
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

export type PaymentMethodName = 'test' | 'stripe';

export interface PaymentSettings {
  /** HMAC key of challenge ids; the first signs, all verify (old ones until their challenges expire). */
  secrets: readonly string[];
  methods: readonly PaymentMethodName[];
  /** Price of one search, in the currency's smallest unit (cents for usd). */
  amount: string;
  currency: string;
  recipient: string;
  ttlSeconds: number;
  /** The Stripe business network profile that shared payment tokens are granted to. */
  stripeNetworkId?: string;
}

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** The recurring Price a Checkout subscription is for. */
  priceId: string;
  /** Another Stripe API base (stripe-mock, a test's stand-in); unset: api.stripe.com. */
  apiUrl?: URL;
}
