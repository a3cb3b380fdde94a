import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { RUNTIME_FOLDERS } from '../../src/config/config';

// No Docker engine runs on the development machines, so the deployment files are
// checked by reading them: valid YAML, and the fields a deployment depends on.
interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: string[];
}

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as {
    services: Record<string, Service>;
    volumes: Record<string, unknown>;
  };
  const { db, init, api } = compose.services;

  it('runs PostgreSQL with pgvector, kept in a volume, healthy before anything starts', () => {
    expect(db.image).toMatch(/^pgvector\/pgvector:pg1[5-9]$/);
    expect(db.healthcheck?.test.join(' ')).toContain('pg_isready');
    expect(Object.keys(compose.volumes)).toContain('pgdata');
  });

  it('migrates and loads the corpus once, before the API starts', () => {
    expect(init.build).toBe('.');
    expect(init.command?.join(' ')).toMatch(/bin\/freshfacts db migrate && .*ingest corpus\//);
    expect(init.depends_on?.db.condition).toBe('service_healthy');
    expect(api.depends_on?.init.condition).toBe('service_completed_successfully');
  });

  it('builds the API from the Dockerfile, on the db service, checked by /readyz', () => {
    expect(api.build).toBe('.');
    for (const service of [init, api]) {
      expect(service.environment?.DATABASE_URL).toMatch(/^postgres:\/\/[^@]+@db:5432\//);
    }
    expect(api.environment?.FRESHFACTS_SEED_FILE).toBe('');
    expect(api.healthcheck?.test.join(' ')).toContain('/readyz');
    expect(api.ports).toContain('8080:8080');
  });

  it('names only settings that .env.example documents', () => {
    const documented = readFileSync('.env.example', 'utf8');
    for (const service of Object.values(compose.services)) {
      for (const name of Object.keys(service.environment ?? {})) {
        if (name.startsWith('POSTGRES_')) continue;
        expect(documented).toMatch(new RegExp(`^${name}=`, 'm'));
      }
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync('Dockerfile', 'utf8');

  it('builds with dev dependencies, then runs with runtime ones as an unprivileged user', () => {
    expect(dockerfile).toMatch(/^FROM node:20[^\n]* AS build$/m);
    expect(dockerfile).toMatch(/RUN npm run build/);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/^USER node$/m);
    for (const dir of RUNTIME_FOLDERS) {
      expect(dockerfile).toMatch(new RegExp(`^COPY (--from=build /app/)?${dir} \\./${dir}$`, 'm'));
    }
  });

  it('serves on all interfaces and checks readiness', () => {
    expect(dockerfile).toMatch(
      /^CMD \["node", "bin\/freshfacts", "serve", "--host", "0\.0\.0\.0"/m,
    );
    expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/readyz/);
  });
});
