import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildConfig, ConfigError } from '../../src/config/config';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const SECRET = 'x'.repeat(32);

describe('settings', () => {
  it('documents in .env.example every variable the code reads', () => {
    const documented = new Set(
      readFileSync('.env.example', 'utf8')
        .split('\n')
        .map((line) => /^#?\s*([A-Z_]+)=/.exec(line)?.[1])
        .filter(Boolean),
    );
    const read = new Set(
      sources('src').flatMap((file) =>
        // env.NAME, and names read through a list ('FRESHFACTS_…').
        [...readFileSync(file, 'utf8').matchAll(/env\.([A-Z][A-Z_]+)|'(FRESHFACTS_[A-Z_]+)'/g)].map(
          (m) => m[1] ?? m[2],
        ),
      ),
    );
    expect(read.size).toBeGreaterThan(5);
    for (const name of read) expect(documented).toContain(name);
  });

  it('defaults to the embedded database in ./data', () => {
    const config = buildConfig({});
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir).toMatch(/data$/);
    expect(config.port).toBe(8080);
  });

  it('keeps the store current out of the box: the worker runs inside serve, one setting stops it', () => {
    const config = buildConfig({});
    expect(config.sourcesWorker).toBe(true);
    expect(config.sparql).toEqual({
      url: 'https://query.wikidata.org/sparql',
      timeoutMs: 65_000,
      maxBytes: 64 * 1024 * 1024,
    });
    expect(buildConfig({ FRESHFACTS_SOURCES_WORKER: 'off' }).sourcesWorker).toBe(false);
    expect(buildConfig({ FRESHFACTS_SPARQL_URL: 'http://127.0.0.1:9999/sparql' }).sparql.url).toBe(
      'http://127.0.0.1:9999/sparql',
    );
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ FRESHFACTS_EMBEDDER: 'magic' }, /FRESHFACTS_EMBEDDER/],
    [{ FRESHFACTS_SOURCES_WORKER: 'yes' }, /FRESHFACTS_SOURCES_WORKER must be one of on, off/],
    [{ FRESHFACTS_SPARQL_URL: 'query.wikidata.org' }, /FRESHFACTS_SPARQL_URL must be an http/],
    [{ FRESHFACTS_SPARQL_MAX_BYTES: '10' }, /FRESHFACTS_SPARQL_MAX_BYTES must be an integer/],
    [{ FRESHFACTS_TLS_CERT: 'cert.pem' }, /together/],
    [{ FRESHFACTS_EMBEDDER: 'openai' }, /FRESHFACTS_EMBEDDINGS_URL/],
    [
      { FRESHFACTS_PUBLIC_URL: 'facts.example.com' },
      /FRESHFACTS_PUBLIC_URL must be an http\(s\) URL/,
    ],
    [{ FRESHFACTS_STRIPE_SECRET_KEY: 'sk_live_x' }, /must be set together/],
    [
      {
        FRESHFACTS_STRIPE_SECRET_KEY: 'sk_live_x',
        FRESHFACTS_STRIPE_WEBHOOK_SECRET: 'secret',
        FRESHFACTS_STRIPE_PRICE_ID: 'price_x',
      },
      /must start with whsec_/,
    ],
    [{ FRESHFACTS_STRIPE_API_URL: 'http://127.0.0.1:12111' }, /needs the other Stripe settings/],
    [{ FRESHFACTS_PAYMENT_METHODS: 'test' }, /needs FRESHFACTS_PAYMENT_SECRET/],
    [
      { FRESHFACTS_PAYMENT_SECRET: 'short', FRESHFACTS_PAYMENT_METHODS: 'test' },
      /at least 32 bytes/,
    ],
    [{ FRESHFACTS_PAYMENT_SECRET: SECRET }, /must name the accepted methods/],
    [
      { FRESHFACTS_PAYMENT_SECRET: SECRET, FRESHFACTS_PAYMENT_METHODS: 'test,cash' },
      /unknown method "cash"/,
    ],
    [
      { FRESHFACTS_PAYMENT_SECRET: SECRET, FRESHFACTS_PAYMENT_METHODS: 'stripe' },
      /FRESHFACTS_PAYMENT_STRIPE_NETWORK_ID/,
    ],
    [
      {
        FRESHFACTS_PAYMENT_SECRET: SECRET,
        FRESHFACTS_PAYMENT_METHODS: 'test',
        FRESHFACTS_PAYMENT_AMOUNT: '0.5',
      },
      /FRESHFACTS_PAYMENT_AMOUNT must be a positive whole number/,
    ],
    [
      {
        FRESHFACTS_PAYMENT_SECRET: SECRET,
        FRESHFACTS_PAYMENT_METHODS: 'test',
        FRESHFACTS_PAYMENT_OLD_SECRETS: 'old',
      },
      /at least 32 bytes/,
    ],
    [
      { DATABASE_REPLICA_URLS: 'postgres://replica/db' },
      /DATABASE_REPLICA_URLS needs DATABASE_URL/,
    ],
    [
      { DATABASE_URL: 'postgres://primary/db', DATABASE_REPLICA_URLS: 'replica:5432' },
      /not a postgres:\/\/ URL: "replica:5432"/,
    ],
    [{ FRESHFACTS_INDEX_MEMORY_MB: '0' }, /FRESHFACTS_INDEX_MEMORY_MB must be an integer/],
  ])('refuses %j with a message naming the setting', (env, message) => {
    expect(() => buildConfig(env)).toThrow(ConfigError);
    expect(() => buildConfig(env)).toThrow(message);
  });

  it('reads the replicas as a comma-separated list', () => {
    const config = buildConfig({
      DATABASE_URL: 'postgres://primary/db',
      DATABASE_REPLICA_URLS: ' postgres://r1/db, postgres://r2/db ,',
    });
    expect(config.replicaUrls).toEqual(['postgres://r1/db', 'postgres://r2/db']);
    expect(config.replicaMaxLagMs).toBe(5000);
    expect(buildConfig({}).indexMemoryMb).toBeUndefined();
  });

  it('marks cookies Secure when browsers reach the service over HTTPS', () => {
    expect(buildConfig({}).secureCookies).toBe(false);
    const proxied = buildConfig({ FRESHFACTS_PUBLIC_URL: 'https://facts.example.com/' });
    expect(proxied.secureCookies).toBe(true);
    expect(proxied.publicUrl).toBe('https://facts.example.com');
  });

  it('turns Stripe on only with its key, webhook secret and price together', () => {
    expect(buildConfig({}).stripe).toBeUndefined();
    const config = buildConfig({
      FRESHFACTS_STRIPE_SECRET_KEY: 'sk_test_x',
      FRESHFACTS_STRIPE_WEBHOOK_SECRET: 'whsec_x',
      FRESHFACTS_STRIPE_PRICE_ID: 'price_x',
      FRESHFACTS_STRIPE_API_URL: 'http://127.0.0.1:12111',
    });
    expect(config.stripe).toMatchObject({ secretKey: 'sk_test_x', priceId: 'price_x' });
    expect(config.stripe?.apiUrl?.port).toBe('12111');
  });

  it('turns pay per call on with a secret and explicit methods', () => {
    expect(buildConfig({}).payments).toBeUndefined();
    const config = buildConfig({
      FRESHFACTS_PAYMENT_SECRET: SECRET,
      FRESHFACTS_PAYMENT_OLD_SECRETS: `${'y'.repeat(40)}, ${'z'.repeat(32)}`,
      FRESHFACTS_PAYMENT_METHODS: 'test',
      FRESHFACTS_PAYMENT_CURRENCY: 'EUR',
    });
    expect(config.payments).toMatchObject({
      secrets: [SECRET, 'y'.repeat(40), 'z'.repeat(32)],
      methods: ['test'],
      amount: '1',
      currency: 'eur',
      ttlSeconds: 300,
    });
  });

  it('is built from the environment it is given alone, and cannot be changed afterwards', () => {
    const env = { PORT: '9090', FRESHFACTS_FETCH_CONTACT: 'ops@example.com' };
    const config = buildConfig(env, '9.9.9');
    expect(config).toEqual(buildConfig({ ...env }, '9.9.9'));
    expect(config.fetch.userAgent).toBe('freshfacts/9.9.9 (+ops@example.com)');
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.fetch)).toBe(true);
    expect(Object.isFrozen(config.replicaUrls)).toBe(true);
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it('names the installed version to upstream servers by default', () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(buildConfig({}).fetch.userAgent).toMatch(
      `freshfacts/${version} (+http://127.0.0.1:8080)`,
    );
  });
});
