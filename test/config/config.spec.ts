import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/config';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

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
        [...readFileSync(file, 'utf8').matchAll(/env\.([A-Z][A-Z_]+)/g)].map((m) => m[1]),
      ),
    );
    expect(read.size).toBeGreaterThan(5);
    for (const name of read) expect(documented).toContain(name);
  });

  it('defaults to the embedded database in ./data', () => {
    const config = loadConfig({});
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir).toMatch(/data$/);
    expect(config.port).toBe(8080);
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ FRESHFACTS_EMBEDDER: 'magic' }, /FRESHFACTS_EMBEDDER/],
    [{ FRESHFACTS_TLS_CERT: 'cert.pem' }, /together/],
    [{ FRESHFACTS_EMBEDDER: 'openai' }, /FRESHFACTS_EMBEDDINGS_URL/],
  ])('refuses %j with a message naming the setting', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
