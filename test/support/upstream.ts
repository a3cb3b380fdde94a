import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { extname, join, resolve } from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config';

/** Real captured upstream data (Wikidata, feeds, pages), shipped as fixtures; see its README. */
export const UPSTREAM_DIR = resolve(PROJECT_ROOT, 'test', 'fixtures', 'upstream');
if (!existsSync(UPSTREAM_DIR)) {
  throw new Error(`the captured upstream data is missing: expected ${UPSTREAM_DIR}`);
}

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  status: number;
  body: string;
}

/** Answers a chat completion request (its parsed JSON body) with a reply body, or a status. */
export type ChatHandler = (request: ChatRequest) => unknown;
export interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: unknown;
}

/**
 * A real HTTP server on a loopback port that plays the upstream web:
 * - `/upstream/…` serves the files of test/fixtures/upstream with ETag and
 *   Last-Modified, answering conditional requests with 304;
 * - `/robots.txt` serves `robots` (set by the test);
 * - `/w/api.php` answers wbgetentities with `labels` (written by the test, since the
 *   captured documents do not carry the labels of their values);
 * - `/fail/…` misbehaves: `500`, `slow` (answers after 5 s), `garbage`, `huge`
 *   (streams without a length), `flaky` (503, then the file named by `?then=`);
 * - `/v1/chat/completions` is the stand-in for an OpenAI-compatible chat API and
 *   answers through `chat`, set by the test.
 * Every request is recorded in `seen`.
 */
export class UpstreamServer {
  readonly seen: SeenRequest[] = [];
  robots = 'User-agent: *\nDisallow: /private/\n';
  labels: Record<string, string> = {};
  chat: ChatHandler = () => ({ status: 500 });
  /** Replaces a file's bytes (a feed that changed). */
  readonly overrides = new Map<string, Buffer>();
  private readonly server = createServer((req, res) => void this.handle(req, res));
  private flaky = 0;
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((done) => this.server.close(done));
  }

  /** URL of a captured file, e.g. `feeds/guardian-us_2018-01-31.rss.xml`. */
  file(path: string): string {
    return `${this.url}/upstream/${path}`;
  }

  /** Requests for `path` (without query) and their statuses. */
  requests(path: string): SeenRequest[] {
    return this.seen.filter((request) => request.path === path);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const body = await readBody(req);
    const answer = (status: number, content: string | Buffer = '', headers = {}) => {
      this.seen.push({
        method: req.method ?? '',
        path: url.pathname,
        headers: req.headers,
        status,
        body,
      });
      res.writeHead(status, headers).end(content);
    };
    const path = url.pathname;
    if (path === '/robots.txt') return answer(200, this.robots, { 'content-type': 'text/plain' });
    if (path.startsWith('/upstream/')) return this.serveFile(req, path.slice(10), answer);
    if (path === '/w/api.php') return answer(200, JSON.stringify(this.labelsFor(url)), JSON_TYPE);
    if (path === '/v1/chat/completions') {
      const reply = this.chat(JSON.parse(body) as ChatRequest) as { status?: number };
      return reply.status ? answer(reply.status) : answer(200, JSON.stringify(reply), JSON_TYPE);
    }
    if (path === '/fail/500') return answer(500, 'upstream broke');
    if (path === '/fail/garbage') {
      return answer(200, createHash('sha512').update('noise').digest(), {
        'content-type': 'application/rss+xml',
      });
    }
    if (path === '/fail/slow') {
      // Answers late, unless the client has given up first.
      const timer = setTimeout(() => answer(200, '<rss/>'), 5000);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (path === '/fail/huge') return this.serveHuge(req, res, url);
    if (path === '/fail/flaky') {
      if (this.flaky++ % 2 === 0) return answer(503, '', { 'retry-after': '0' });
      return this.serveFile(req, url.searchParams.get('then') ?? '', answer);
    }
    return answer(404, 'not found');
  }

  private serveFile(
    req: IncomingMessage,
    relative: string,
    answer: (status: number, content?: string | Buffer, headers?: object) => void,
  ): void {
    const file = join(UPSTREAM_DIR, decodeURIComponent(relative));
    if (!file.startsWith(UPSTREAM_DIR) || !existsSync(file)) return answer(404, 'not found');
    const bytes = this.overrides.get(relative) ?? readFileSync(file);
    const etag = `"${createHash('sha1').update(bytes).digest('hex')}"`;
    const modified = this.overrides.has(relative) ? new Date() : statSync(file).mtime;
    const lastModified = modified.toUTCString();
    if (req.headers['if-none-match'] === etag) return answer(304, '', { etag });
    const headers = { etag, 'last-modified': lastModified, 'content-type': TYPES[extname(file)] };
    answer(200, bytes, headers);
  }

  private serveHuge(req: IncomingMessage, res: ServerResponse, url: URL): void {
    this.seen.push({
      method: req.method ?? '',
      path: url.pathname,
      headers: req.headers,
      status: 200,
      body: '',
    });
    res.writeHead(200, { 'content-type': 'text/html' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const push = () => {
      while (sent < 64 * 1024 * 1024 && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', push);
      }
      res.end();
    };
    push();
  }

  private labelsFor(url: URL) {
    const ids = (url.searchParams.get('ids') ?? '').split('|');
    const entities = Object.fromEntries(
      ids.map((id) =>
        this.labels[id]
          ? [id, { id, labels: { en: { language: 'en', value: this.labels[id] } } }]
          : [id, { id, missing: '' }],
      ),
    );
    return { entities, success: 1 };
  }
}

const JSON_TYPE = { 'content-type': 'application/json' };
const TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.html': 'text/html',
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
  });
}

/** A chat completion whose message content is `content` (a string, sent as is). */
export function completion(content: string) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
  };
}
