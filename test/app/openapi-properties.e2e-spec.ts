import { request as httpRequest } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { startApp, TestApp } from '../support/app';
import { CATANIA } from '../support/corpus';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
// Bounds that keep this story to about half a minute on a shared two-core machine.
const RUNS = 3000;
const TIME_LIMIT_MS = 30_000;

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  example?: unknown;
  maxLength?: number;
  $ref?: string;
  allOf?: Schema[];
}

interface Operation {
  method: string;
  path: string;
  params: string[];
  body?: Schema;
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/**
 * Whatever a client sends to any route of the OpenAPI document the app serves (bodies
 * built from its schemas and mangled, junk credentials, content types and encodings),
 * the answer is never a 5xx, and every error is an RFC 9457 problem.
 */
describe('any request to a documented route', () => {
  let t: TestApp;
  let operations: Operation[];
  beforeAll(async () => {
    t = await startApp({
      facts: CATANIA,
      env: {
        FRESHFACTS_ADMIN_TOKEN: ADMIN_TOKEN,
        FRESHFACTS_PAYMENT_SECRET: 'payment-secret-for-property-tests',
        FRESHFACTS_PAYMENT_METHODS: 'test',
        FRESHFACTS_PAYMENT_AMOUNT: '2',
        FRESHFACTS_PAYMENT_RECIPIENT: 'acct_freshfacts',
      },
    });
    operations = operationsOf((await (await fetch(`${t.url}/docs-json`)).json()) as OpenApi);
    // Thousands of answered calls would use up the free plan and leave only 402s.
    const paid = await fetch(`${t.url}/admin/accounts/tester@example.com/plan`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{"plan": "paid"}',
    });
    expect(paid.status).toBe(200);
  });
  afterAll(() => t.close());

  it('reads every route and its body schema from /docs-json', () => {
    const names = operations.map((op) => `${op.method} ${op.path}`);
    expect(names).toEqual(expect.arrayContaining(['POST /v1/search', 'POST /api/research']));
    expect(operations.find((op) => op.path === '/v1/search')?.body?.properties).toHaveProperty(
      'true_by_min',
    );
  });

  it('never answers 5xx, and answers every error as problem+json', async () => {
    const answered = new Set<string>();
    // Routes that take a body are drawn three times as often: there is more to get wrong.
    const requests = fc.oneof(
      ...operations.map((op) => ({ arbitrary: requestOf(op, t.key), weight: op.body ? 3 : 1 })),
    );
    await fc.assert(
      fc.asyncProperty(requests, async (sent) => {
        const answer = await send(t.url, sent);
        const label = `${sent.method} ${sent.path} → ${answer.status} ${answer.body.slice(0, 300)}`;
        if (answer.status < 300) answered.add(sent.path);
        expect([label, answer.status < 500]).toEqual([label, true]);
        if (answer.status >= 400) {
          expect([label, answer.contentType]).toEqual([
            label,
            expect.stringMatching(/^application\/problem\+json/),
          ]);
          expect(JSON.parse(answer.body)).toMatchObject({
            type: expect.any(String),
            title: expect.any(String),
            status: answer.status,
          });
        }
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false },
    );
    // The generated requests get through to the handlers, not only to the checks.
    expect([...answered]).toEqual(expect.arrayContaining(['/v1/search', '/api/research']));
  });
});

interface OpenApi {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, Schema> };
}

interface OpenApiOperation {
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}

function operationsOf(doc: OpenApi): Operation[] {
  const resolve = (schema: Schema): Schema => {
    const ref = schema.$ref ?? schema.allOf?.[0]?.$ref;
    return ref ? resolve(doc.components.schemas[ref.split('/').pop()!]) : schema;
  };
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const schema = op.requestBody?.content['application/json']?.schema;
      return {
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
        body: schema && resolve(schema),
      };
    }),
  );
}

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The body before any Content-Encoding, as text so that a counterexample reads. */
  body: string;
  compressed: boolean;
}

/** One request to `op`: its path filled in, a body, and any mix of headers. */
function requestOf(op: Operation, key: string): fc.Arbitrary<Sent> {
  return fc
    .record({
      params: fc.tuple(...op.params.map(() => pathValue)),
      body: op.body ? bodyOf(op.body) : fc.oneof(fc.constant(''), junkText),
      // Mostly what a client means to send, so that requests get past the checks
      // and reach the search; the rest junk.
      authorization: mostly(
        fc.constant(`Bearer ${op.path.startsWith('/admin') ? ADMIN_TOKEN : key}`),
        fc.constant(null),
        fc.constant(`Bearer ${op.path.startsWith('/admin') ? key : ADMIN_TOKEN}`),
        headerJunk.map((junk) => `Bearer ${junk}`),
        headerJunk.map((junk) => `Bearer ff_live_${junk}`),
        headerJunk,
      ),
      payment: mostly(
        fc.constant(null),
        fc.json().map((json) => `Payment ${Buffer.from(json).toString('base64url')}`),
        headerJunk.map((junk) => `Payment ${junk}`),
      ),
      contentType: mostly(
        fc.constant('application/json'),
        fc.constantFrom(
          null,
          'application/json; charset=utf-8',
          'application/json; charset=utf-16',
          'application/json; charset=latin1',
          'application/json; charset=bogus',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          ';;;',
        ),
      ),
      encoding: mostly(
        fc.constant(null),
        fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'zstd', 'compress', 'gzip, br'),
      ),
      encodeBody: fc.boolean(),
    })
    .map((drawn) => {
      let path = op.path;
      op.params.forEach((name, i) => (path = path.replace(`{${name}}`, drawn.params[i])));
      const headers: Record<string, string> = {};
      if (drawn.authorization !== null) headers.authorization = drawn.authorization;
      if (drawn.payment !== null) headers['payment-authorization'] = drawn.payment;
      if (drawn.contentType !== null) headers['content-type'] = drawn.contentType;
      if (drawn.encoding !== null) headers['content-encoding'] = drawn.encoding;
      return { method: op.method, path, headers, body: drawn.body, compressed: drawn.encodeBody };
    });
}

/** `usual` six times in eight, else one of `others`. */
function mostly<T>(usual: fc.Arbitrary<T>, ...others: fc.Arbitrary<T>[]): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: usual, weight: 6 }, { arbitrary: fc.oneof(...others), weight: 2 });
}

function encoded(sent: Sent): Buffer {
  const body = Buffer.from(sent.body);
  const encoding = sent.compressed ? sent.headers['content-encoding'] : undefined;
  if (encoding === 'gzip') return gzipSync(body);
  if (encoding === 'deflate') return deflateSync(body);
  if (encoding === 'br') return brotliCompressSync(body);
  return body;
}

const printable = fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code));
const headerJunk = fc.string({ unit: printable, maxLength: 60 });

// Strings that once reached the database or a date routine and failed there.
const nastyStrings = fc.constantFrom(
  '\u0000',
  'a\u0000b',
  'Catania coach\u0000',
  '\ud800',
  '',
  '   ',
  'x'.repeat(2001),
  '0000-01-01',
  '0001-01-01T00:00:00+14:00',
  '9999-12-31T23:00:00-12:00',
  '2024-02-30',
  '2024-05-01T12:00:00+99:99',
  'openai/gpt-4o',
  'tester@example.com',
  '../../etc/passwd',
);

const dateText = fc
  .record({
    year: fc.integer({ min: 0, max: 9999 }),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
    time: fc.option(fc.integer({ min: 0, max: 86_399 })),
    offset: fc.option(fc.integer({ min: -15 * 60, max: 15 * 60 })),
  })
  .map(({ year, month, day, time, offset }) => {
    const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');
    let text = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
    if (time !== null) {
      text += `T${pad(Math.floor(time / 3600))}:${pad(Math.floor(time / 60) % 60)}:${pad(time % 60)}`;
      if (offset !== null) {
        text += `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
      }
    }
    return text;
  });

const stringValue = fc.oneof(
  { arbitrary: nastyStrings, weight: 3 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 1 },
  { arbitrary: dateText, weight: 1 },
);

// Number literals as text: JSON allows what a double cannot hold.
const numberText = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.constantFrom('1e309', '-1e309', '9'.repeat(400), `-${'9'.repeat(400)}`, '20.0', '1e-400'),
);

const deepText = fc
  .integer({ min: 1, max: 3000 })
  .chain((depth) =>
    fc
      .constantFrom(['[', ']'], ['{"a":', '}'])
      .map(([open, close]) => `${open.repeat(depth)}1${close.repeat(depth)}`),
  );

/** Any JSON value as text, including the kinds that once broke the server. */
const junkText = fc.oneof(
  fc.json({ maxDepth: 3 }),
  stringValue.map((s) => JSON.stringify(s)),
  numberText,
  deepText,
);

function valueText(schema: Schema): fc.Arbitrary<string> {
  const fitting =
    schema.type === 'string'
      ? stringValue.map((s) => JSON.stringify(s))
      : schema.type === 'integer' || schema.type === 'number'
        ? numberText
        : schema.type === 'boolean'
          ? fc.constantFrom('true', 'false')
          : junkText;
  const example = schema.example === undefined ? [] : [fc.constant(JSON.stringify(schema.example))];
  return fc.oneof(...example, fitting, fitting, junkText);
}

/** A body for a schema: its fields (each maybe absent), unknown ones, or no object at all. */
function bodyOf(schema: Schema): fc.Arbitrary<string> {
  const fields = Object.entries(schema.properties ?? {});
  const object = fc
    .tuple(
      ...fields.map(([name, field]) =>
        fc.option(
          valueText(field).map((text) => `${JSON.stringify(name)}:${text}`),
          {
            freq: 3,
          },
        ),
      ),
      fc.array(
        fc
          .tuple(fc.string({ maxLength: 10 }), junkText)
          .map(([k, v]) => `${JSON.stringify(k)}:${v}`),
        { maxLength: 2 },
      ),
    )
    .map((drawn) => {
      const named = drawn.slice(0, -1) as (string | null)[];
      const extra = drawn[drawn.length - 1] as string[];
      const members = [...named.filter((m) => m !== null), ...extra];
      return `{${members.join(',')}}`;
    });
  return fc.oneof(
    { arbitrary: object, weight: 6 },
    { arbitrary: object.map((text) => text.slice(0, Math.max(1, text.length - 3))), weight: 1 },
    { arbitrary: junkText, weight: 1 },
    { arbitrary: fc.string({ maxLength: 30 }), weight: 1 },
  );
}

const pathValue = fc
  .oneof(
    fc.constant('tester@example.com'),
    fc.emailAddress(),
    // Ids that are no key's: revoking the test's own key would leave only 401s.
    fc.integer({ min: -5, max: 0 }).map(String),
    fc.integer({ min: 1_000_000, max: 1_000_010 }).map(String),
    fc.string({ unit: 'binary', maxLength: 20 }),
    nastyStrings,
  )
  .map((value) => encodeURIComponent(value.replace(/[\ud800-\udfff]/g, '?')) || '%20');

function send(base: string, sent: Sent): Promise<Answer> {
  const url = new URL(sent.path, base);
  const body = encoded(sent);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: sent.method,
        headers: { ...sent.headers, 'content-length': String(body.length) },
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer to ${sent.method} ${sent.path}`)));
    req.on('error', reject);
    req.end(body);
  });
}
