import { startApp, TestApp } from '../support/app';
import { exchange, problemOf } from '../support/raw-http';

/** Requests that never reach the app still get an RFC 9457 answer. */
describe('requests Node’s HTTP parser refuses', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  const cases: [string, string, number, string][] = [
    [
      'bad chunked framing',
      'POST /v1/search HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      400,
      '/problems/malformed-http',
    ],
    [
      'two Content-Lengths',
      'POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
      400,
      '/problems/malformed-http',
    ],
    [
      'headers over 16 KiB',
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Junk: ${'a'.repeat(20000)}\r\n\r\n`,
      431,
      '/problems/headers-too-large',
    ],
  ];
  for (const [what, bytes, status, type] of cases) {
    it(`answers ${what} with ${status} problem+json`, async () => {
      const { text } = await exchange(t.url, bytes);
      expect(problemOf(text)).toMatchObject({
        status,
        type,
        contentType: 'application/problem+json',
      });
    });
  }
});
