import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { CATANIA } from '../support/corpus';
import { exchange, problemOf } from '../support/raw-http';
import { captureStdout } from '../support/stdout';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

describe('request bodies on the wire', () => {
  let t: TestApp;
  let logged: string[] = [];
  beforeAll(async () => {
    logged = captureStdout();
    t = await startApp({
      facts: CATANIA,
      env: { FRESHFACTS_ADMIN_TOKEN: ADMIN_TOKEN, FRESHFACTS_LOG_LEVEL: 'debug' },
    });
  });
  afterAll(async () => {
    await t.close();
    jest.restoreAllMocks();
  });

  const POST_ROUTES = [
    '/v1/search',
    '/api/research',
    '/admin/accounts',
    '/admin/accounts/tester@example.com/keys',
    '/dashboard/signup',
    '/dashboard/login',
    '/dashboard/keys',
    '/webhooks/stripe',
  ];

  describe('a body that does not decode as its Content-Encoding says', () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      it(`answers 400 unreadable-body on every POST route (${encoding})`, async () => {
        for (const path of POST_ROUTES) {
          const res = await request(t.url)
            .post(path)
            .set('Authorization', `Bearer ${path.startsWith('/admin') ? ADMIN_TOKEN : t.key}`)
            .set('Content-Type', 'application/json')
            .set('Content-Encoding', encoding)
            .send('{"query": "not compressed at all"}');
          expect([path, res.status]).toEqual([path, 400]);
          expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
          expect(res.body.type).toBe('/problems/unreadable-body');
          expect(res.body.detail).toContain(`"${encoding}"`);
        }
      });
    }

    it('while a body that does decode is read as usual', async () => {
      // fetch sends the Buffer as it is (superagent would serialise it as JSON).
      const res = await fetch(`${t.url}/v1/search`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.key}`,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
        },
        body: gzipSync('{"query": "Catania coach"}'),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { results: unknown[] }).results.length).toBeGreaterThan(0);
    });
  });

  it('refuses a declared Content-Length over 64 KiB at once, without waiting for the body', async () => {
    const { text, ms } = await exchange(
      t.url,
      'POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        'Content-Length: 1000000\r\n\r\n{"query": ',
      5000,
    );
    expect(problemOf(text)).toMatchObject({
      status: 413,
      type: '/problems/payload-too-large',
      contentType: expect.stringMatching(/^application\/problem\+json/),
    });
    expect(ms).toBeLessThan(3000);
  });

  it('logs a client that closes mid-upload at debug, with no error and no stack', async () => {
    const socket = connect(Number(new URL(t.url).port), '127.0.0.1');
    await new Promise<void>((resolve) =>
      socket.write(
        'POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          'Content-Length: 1000\r\n\r\n{"query": ',
        () => resolve(),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lines = logged.join('').split('\n');
    expect(lines.some((line) => /"level":20.*client closed the connection/.test(line))).toBe(true);
    expect(lines.filter((line) => /"level":50/.test(line))).toEqual([]);
  });
});
