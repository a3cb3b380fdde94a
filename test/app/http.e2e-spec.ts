import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { CATANIA } from '../support/corpus';

describe('the HTTP surface', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ facts: CATANIA });
  });
  afterAll(() => t.close());

  it('answers /healthz', async () => {
    await request(t.url).get('/healthz').expect(200, { status: 'ok' });
  });

  it('serves Swagger UI and an OpenAPI document generated from the DTOs', async () => {
    const ui = await request(t.url).get('/docs/').expect(200);
    expect(ui.text).toContain('swagger-ui');
    const doc = (await request(t.url).get('/docs-json').expect(200)).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/search', '/api/research', '/v1/models', '/healthz']),
    );
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.SearchRequestDto.properties).sort()).toEqual([
      'k',
      'model_id',
      'query',
      'timeline',
      'true_by_max',
      'true_by_min',
    ]);
    expect(Object.keys(schemas.ResearchRequestDto.properties).sort()).toEqual([
      'k',
      'model_id',
      'query',
      'timeline',
    ]);
    expect(Object.keys(schemas.FactDto.properties).sort()).toEqual([
      'answer',
      'question',
      'sources',
      'true_by',
    ]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('lists the model cutoffs that model_id understands', async () => {
    const res = await request(t.url).get('/v1/models').expect(200);
    expect(res.body.models.length).toBeGreaterThan(100);
    expect(res.body.models).toContainEqual(
      expect.objectContaining({
        id: 'openai/gpt-4o',
        cutoff: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      }),
    );
  });
});

describe('HTTPS', () => {
  let dir: string;
  let t: TestApp;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'freshfacts-tls-'));
    // A throwaway self-signed certificate for 127.0.0.1, made by the machine's openssl.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    t = await startApp({
      facts: CATANIA,
      env: { FRESHFACTS_TLS_CERT: join(dir, 'cert.pem'), FRESHFACTS_TLS_KEY: join(dir, 'key.pem') },
    });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the API over TLS with the given certificate', async () => {
    expect(t.url).toMatch(/^https:/);
    const res = await request(t.url)
      .post('/v1/search')
      .trustLocalhost()
      .set('Authorization', `Bearer ${t.key}`)
      .send({ query: 'Catania coach' })
      .expect(200);
    expect(res.body.results.length).toBeGreaterThan(0);
    const subject = await new Promise<string>((resolve, reject) =>
      get(`${t.url}/healthz`, { rejectUnauthorized: false }, (res) => {
        resolve(
          JSON.stringify((res.socket as import('node:tls').TLSSocket).getPeerCertificate().subject),
        );
        res.resume();
      }).on('error', reject),
    );
    expect(subject).toContain('127.0.0.1');
  });
});
