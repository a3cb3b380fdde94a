import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type {
  Config,
  DeepReadonly,
  FetchSettings,
  LlmSettings,
  PaymentMethodName,
  PaymentSettings,
  Settings,
  StripeSettings,
} from './settings';

export type {
  Config,
  AppConfig,
  DeepReadonly,
  FetchSettings,
  SparqlSettings,
  LlmSettings,
  PaymentMethodName,
  PaymentSettings,
  StripeSettings,
} from './settings';

export class ConfigError extends Error {}

type Env = NodeJS.ProcessEnv;

const UP = resolve(__dirname, '..', '..');
/** The repository root, also when running from `dist/`. */
export const PROJECT_ROOT = basename(UP) === 'dist' ? resolve(UP, '..') : UP;

/**
 * The repository's folders that the installed service reads at run time, besides
 * `package.json` and `node_modules`. Code reads them only through `projectPath`, so
 * this list is complete; the container image copies each one (test/deploy).
 */
export const RUNTIME_FOLDERS = [
  'bin',
  'dist',
  'corpus',
  'models',
  'presets',
  'views',
  'public',
] as const;
export type RuntimeFolder = (typeof RUNTIME_FOLDERS)[number];

/** A path inside one of the `RUNTIME_FOLDERS`. */
export function projectPath(folder: RuntimeFolder, ...parts: string[]): string {
  return resolve(PROJECT_ROOT, folder, ...parts);
}

export const DEFAULT_SEED_FILE = projectPath('corpus', 'facts-dev.jsonl');

export const CONFIG = Symbol('AppConfig');

/**
 * The config of `env`, deeply frozen; throws a ConfigError naming the first bad setting.
 * Pure but for `version`, read from package.json on first use when not passed.
 */
export function buildConfig(env: NodeJS.ProcessEnv, version: string = packageVersion()): Config {
  const embedder = oneOf(
    env,
    'FRESHFACTS_EMBEDDER',
    ['static', 'use-lite', 'openai'] as const,
    'static',
  );
  const server = serverSettings(env);
  const stripe = stripeSettings(env);
  const fetchLimits = fetchLimitsOf(env);
  const sources = {
    wikidataApiUrl: httpUrl(env, 'FRESHFACTS_WIKIDATA_API') ?? 'https://www.wikidata.org/w/api.php',
    sparql: {
      url: httpUrl(env, 'FRESHFACTS_SPARQL_URL') ?? 'https://query.wikidata.org/sparql',
      timeoutMs: integer(env, 'FRESHFACTS_SPARQL_TIMEOUT_MS', 65_000, 100, 600_000),
      maxBytes: integer(env, 'FRESHFACTS_SPARQL_MAX_BYTES', 64 * 1024 * 1024, 1024, 2 ** 31 - 1),
    },
    llm: llmSettings(env),
    sourcesWorker: oneOf(env, 'FRESHFACTS_SOURCES_WORKER', ['on', 'off'] as const, 'on') === 'on',
    mcpApiKey: nonEmpty(env.FRESHFACTS_API_KEY),
  };
  const payments = paymentSettings(env, stripe);
  checkServer(server);
  const publicUrl = publicUrlOf(env, server);
  if (Boolean(server.tlsCertFile) !== Boolean(server.tlsKeyFile)) {
    throw new ConfigError('FRESHFACTS_TLS_CERT and FRESHFACTS_TLS_KEY must be set together');
  }
  if (embedder === 'openai' && (!server.embeddingsUrl || !server.embeddingsModel)) {
    throw new ConfigError(
      'FRESHFACTS_EMBEDDER=openai needs FRESHFACTS_EMBEDDINGS_URL and FRESHFACTS_EMBEDDINGS_MODEL',
    );
  }
  const contact = nonEmpty(env.FRESHFACTS_FETCH_CONTACT) ?? publicUrl;
  const settings: Settings = {
    ...server,
    embedder,
    publicUrl,
    // Behind a TLS-terminating proxy the service itself speaks HTTP, yet browsers use HTTPS.
    secureCookies: publicUrl.startsWith('https:'),
    stripe,
    payments,
    // Upstream operators see who fetches: the service and how to reach whoever runs it.
    fetch: { userAgent: `${userAgent(version)} (+${contact})`, ...fetchLimits },
    ...sources,
  };
  return deepFreeze(settings);
}

/** The settings of the database, the listener, the encoder and the admin endpoints. */
function serverSettings(env: Env) {
  return {
    databaseUrl: nonEmpty(env.DATABASE_URL),
    replicaUrls: (env.DATABASE_REPLICA_URLS ?? '')
      .split(',')
      .map((url) => url.trim())
      .filter(Boolean),
    replicaMaxLagMs: integer(env, 'FRESHFACTS_REPLICA_MAX_LAG_MS', 5000, 0, 3_600_000),
    dataDir: resolve(env.FRESHFACTS_DATA_DIR || 'data'),
    host: env.FRESHFACTS_HOST || '127.0.0.1',
    port: integer(env, 'PORT', 8080, 0, 65535),
    tlsCertFile: nonEmpty(env.FRESHFACTS_TLS_CERT),
    tlsKeyFile: nonEmpty(env.FRESHFACTS_TLS_KEY),
    dbPoolSize: integer(env, 'FRESHFACTS_DB_POOL_SIZE', 10, 1, 1000),
    dbPreparedStatements:
      oneOf(env, 'FRESHFACTS_DB_PREPARED_STATEMENTS', ['on', 'off'] as const, 'on') === 'on',
    indexMemoryMb: optionalInteger(env, 'FRESHFACTS_INDEX_MEMORY_MB', 1, 2_000_000),
    seedFile: env.FRESHFACTS_SEED_FILE ?? DEFAULT_SEED_FILE,
    staticModel: nonEmpty(env.FRESHFACTS_STATIC_MODEL),
    embeddingsUrl: nonEmpty(env.FRESHFACTS_EMBEDDINGS_URL),
    embeddingsModel: nonEmpty(env.FRESHFACTS_EMBEDDINGS_MODEL),
    embeddingsApiKey: nonEmpty(env.FRESHFACTS_EMBEDDINGS_API_KEY),
    logLevel: oneOf(env, 'FRESHFACTS_LOG_LEVEL', ['error', 'warn', 'log', 'debug'] as const, 'log'),
    adminToken: nonEmpty(env.FRESHFACTS_ADMIN_TOKEN),
  };
}

function checkServer(server: ReturnType<typeof serverSettings>): void {
  if (server.replicaUrls.length && !server.databaseUrl) {
    throw new ConfigError('DATABASE_REPLICA_URLS needs DATABASE_URL (the primary)');
  }
  for (const url of server.replicaUrls) {
    if (!/^postgres(ql)?:\/\//.test(url)) {
      throw new ConfigError(`DATABASE_REPLICA_URLS: not a postgres:// URL: "${url}"`);
    }
  }
  if (server.adminToken && server.adminToken.length < 24) {
    throw new ConfigError('FRESHFACTS_ADMIN_TOKEN must be at least 24 characters');
  }
}

/** Where users reach the service: FRESHFACTS_PUBLIC_URL, else the listener's own address. */
function publicUrlOf(env: Env, server: ReturnType<typeof serverSettings>): string {
  const scheme = server.tlsCertFile ? 'https' : 'http';
  const url = nonEmpty(env.FRESHFACTS_PUBLIC_URL) ?? `${scheme}://${server.host}:${server.port}`;
  if (!/^https?:\/\/[^/]+/.test(url)) {
    throw new ConfigError(`FRESHFACTS_PUBLIC_URL must be an http(s) URL, got "${url}"`);
  }
  return url.replace(/\/+$/, '');
}

const STRIPE_VARIABLES = [
  'FRESHFACTS_STRIPE_SECRET_KEY',
  'FRESHFACTS_STRIPE_WEBHOOK_SECRET',
  'FRESHFACTS_STRIPE_PRICE_ID',
] as const;

function stripeSettings(env: Env): StripeSettings | undefined {
  const [secretKey, webhookSecret, priceId] = STRIPE_VARIABLES.map((name) => nonEmpty(env[name]));
  const apiUrl = nonEmpty(env.FRESHFACTS_STRIPE_API_URL);
  if (!secretKey && !webhookSecret && !priceId) {
    if (apiUrl) throw new ConfigError('FRESHFACTS_STRIPE_API_URL needs the other Stripe settings');
    return undefined;
  }
  if (!secretKey || !webhookSecret || !priceId) {
    throw new ConfigError(`${STRIPE_VARIABLES.join(', ')} must be set together`);
  }
  if (!webhookSecret.startsWith('whsec_')) {
    throw new ConfigError('FRESHFACTS_STRIPE_WEBHOOK_SECRET must start with whsec_');
  }
  let url: URL | undefined;
  if (apiUrl) {
    try {
      url = new URL(apiUrl);
    } catch {
      throw new ConfigError(`FRESHFACTS_STRIPE_API_URL must be a URL, got "${apiUrl}"`);
    }
  }
  return { secretKey, webhookSecret, priceId, apiUrl: url };
}

const PAYMENT_METHODS = ['test', 'stripe'] as const;
const MIN_SECRET_BYTES = 32;

function paymentSettings(env: Env, stripe?: StripeSettings): PaymentSettings | undefined {
  const secret = nonEmpty(env.FRESHFACTS_PAYMENT_SECRET);
  const methods = (nonEmpty(env.FRESHFACTS_PAYMENT_METHODS) ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (!secret) {
    if (methods.length)
      throw new ConfigError('FRESHFACTS_PAYMENT_METHODS needs FRESHFACTS_PAYMENT_SECRET');
    return undefined;
  }
  const secrets = [secret, ...(env.FRESHFACTS_PAYMENT_OLD_SECRETS ?? '').split(',')]
    .map((value) => value.trim())
    .filter(Boolean);
  for (const value of secrets) {
    if (Buffer.byteLength(value) < MIN_SECRET_BYTES) {
      throw new ConfigError(
        `FRESHFACTS_PAYMENT_SECRET and FRESHFACTS_PAYMENT_OLD_SECRETS must be at least ${MIN_SECRET_BYTES} bytes each`,
      );
    }
  }
  if (!methods.length) {
    throw new ConfigError(
      `FRESHFACTS_PAYMENT_METHODS must name the accepted methods (${PAYMENT_METHODS.join(', ')})`,
    );
  }
  for (const method of methods) {
    if (!(PAYMENT_METHODS as readonly string[]).includes(method)) {
      throw new ConfigError(
        `FRESHFACTS_PAYMENT_METHODS: unknown method "${method}" (known: ${PAYMENT_METHODS.join(', ')})`,
      );
    }
  }
  const stripeNetworkId = nonEmpty(env.FRESHFACTS_PAYMENT_STRIPE_NETWORK_ID);
  if (methods.includes('stripe') && (!stripe || !stripeNetworkId)) {
    throw new ConfigError(
      'the stripe payment method needs the FRESHFACTS_STRIPE_* settings and FRESHFACTS_PAYMENT_STRIPE_NETWORK_ID',
    );
  }
  const amount = nonEmpty(env.FRESHFACTS_PAYMENT_AMOUNT) ?? '1';
  if (!/^[1-9]\d{0,15}$/.test(amount)) {
    throw new ConfigError(
      `FRESHFACTS_PAYMENT_AMOUNT must be a positive whole number of the currency's smallest unit, got "${amount}"`,
    );
  }
  const currency = (nonEmpty(env.FRESHFACTS_PAYMENT_CURRENCY) ?? 'usd').toLowerCase();
  if (!/^[a-z]{3}$/.test(currency)) {
    throw new ConfigError(
      `FRESHFACTS_PAYMENT_CURRENCY must be an ISO 4217 code, got "${currency}"`,
    );
  }
  return {
    secrets,
    methods: methods as PaymentMethodName[],
    amount,
    currency,
    recipient: nonEmpty(env.FRESHFACTS_PAYMENT_RECIPIENT) ?? 'freshfacts',
    ttlSeconds: integer(env, 'FRESHFACTS_PAYMENT_TTL_SECONDS', 300, 10, 86_400),
    stripeNetworkId,
  };
}

let version: string | undefined;

/** The version in package.json, read on first use (not when this module loads). */
export function packageVersion(): string {
  version ??= (
    JSON.parse(readFileSync(resolve(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
  ).version;
  return version;
}

/** The service's name and version, as upstream servers see it. */
export function userAgent(version: string = packageVersion()): string {
  return `freshfacts/${version}`;
}

function fetchLimitsOf(env: Env): Omit<FetchSettings, 'userAgent'> {
  return {
    timeoutMs: integer(env, 'FRESHFACTS_FETCH_TIMEOUT_MS', 15_000, 100, 600_000),
    maxBytes: integer(env, 'FRESHFACTS_FETCH_MAX_BYTES', 16 * 1024 * 1024, 1024, 2 ** 31 - 1),
    retries: integer(env, 'FRESHFACTS_FETCH_RETRIES', 2, 0, 10),
    backoffMs: integer(env, 'FRESHFACTS_FETCH_BACKOFF_MS', 1000, 0, 60_000),
  };
}

/** Freezes `value` and everything it holds. */
function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value as DeepReadonly<T>;
}

function llmSettings(env: Env): LlmSettings | undefined {
  const url = httpUrl(env, 'FRESHFACTS_LLM_URL');
  const model = nonEmpty(env.FRESHFACTS_LLM_MODEL);
  if (!url && !model) return undefined;
  if (!url || !model) {
    throw new ConfigError('FRESHFACTS_LLM_URL and FRESHFACTS_LLM_MODEL must be set together');
  }
  return {
    url: url.replace(/\/+$/, ''),
    model,
    apiKey: nonEmpty(env.FRESHFACTS_LLM_API_KEY),
    timeoutMs: integer(env, 'FRESHFACTS_LLM_TIMEOUT_MS', 60_000, 1000, 600_000),
  };
}

function httpUrl(env: Env, name: string): string | undefined {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return undefined;
  if (!/^https?:\/\/[^/]+/.test(raw))
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  return raw;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.trim() ? value.trim() : undefined;
}

function optionalInteger(env: Env, name: string, min: number, max: number): number | undefined {
  return nonEmpty(env[name]) === undefined ? undefined : integer(env, name, 0, min, max);
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}
