import { Worker } from 'node:worker_threads';

/** The part of PGlite's API the driver and the set-up use. */
export interface EmbeddedDb {
  query(sql: string, params?: unknown[]): Promise<DbResult>;
  exec(sql: string): Promise<DbResult[]>;
  close(): Promise<void>;
  readonly closed: boolean;
}

export interface DbResult {
  rows: unknown[];
  affectedRows?: number;
  fields: unknown[];
}

type Request =
  { op: 'query'; sql: string; params?: unknown[] } | { op: 'exec'; sql: string } | { op: 'close' };
type Reply = { id: number; result?: unknown; error?: Record<string, unknown> };

/**
 * PGlite in a worker thread. PGlite runs PostgreSQL as WebAssembly on the thread that
 * calls it: in-process, a search's 10 ms of SQL held the event loop, so HTTP parsing,
 * auth and JSON for the other callers waited behind it and the service used one of
 * the machine's cores. On its own thread the database and the HTTP work overlap.
 *
 * The worker is plain JavaScript evaluated from this file's text, so that it runs the
 * same under ts-jest and from dist/; it loads PGlite from the paths resolved here.
 */
export class PGliteThread implements EmbeddedDb {
  private readonly pending = new Map<
    number,
    { done: (r: unknown) => void; fail: (e: Error) => void }
  >();
  private next = 0;
  private exited?: Error;
  closed = false;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: Reply) => {
      const call = this.pending.get(reply.id);
      if (!call) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.worker.unref();
      if (reply.error) call.fail(toError(reply.error));
      else call.done(reply.result);
    });
    const abort = (err: Error) => {
      this.exited = err;
      for (const call of this.pending.values()) call.fail(err);
      this.pending.clear();
    };
    worker.on('error', abort);
    worker.on('exit', (code) => abort(new Error(`the database thread exited (code ${code})`)));
  }

  static async open(dataDir: string): Promise<PGliteThread> {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        dataDir,
        pglite: require.resolve('@electric-sql/pglite'),
        vector: require.resolve('@electric-sql/pglite/vector'),
      },
    });
    const thread = new PGliteThread(worker);
    await thread.call({ op: 'query', sql: 'SELECT 1' });
    return thread;
  }

  query(sql: string, params?: unknown[]): Promise<DbResult> {
    return this.call({ op: 'query', sql, params }) as Promise<DbResult>;
  }

  exec(sql: string): Promise<DbResult[]> {
    return this.call({ op: 'exec', sql }) as Promise<DbResult[]>;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.call({ op: 'close' }).catch(() => undefined);
    await this.worker.terminate();
  }

  private call(request: Request): Promise<unknown> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.next++;
    // Like PGlite in-process, an idle database does not keep the process alive (a
    // command that fails before closing it still exits); a statement in flight does.
    if (this.pending.size === 0) this.worker.ref();
    return new Promise((done, fail) => {
      this.pending.set(id, { done, fail });
      this.worker.postMessage({ ...request, id });
    });
  }
}

/** A PostgreSQL error keeps its SQLSTATE `code`, detail and the rest across the thread. */
function toError(fields: Record<string, unknown>): Error {
  const err = new Error(String(fields.message));
  return Object.assign(err, fields, { message: err.message });
}

/** Named statements the database thread keeps prepared at once. */
const MAX_PREPARED = 200;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite, protocol, parse } = require(workerData.pglite);
const { vector } = require(workerData.vector);
const opened = PGlite.create(workerData.dataDir, { extensions: { vector } });
const { serialize } = protocol;
// PGlite 0.3.16 drops the rest of a request after any message that ends exactly on a
// multiple of 8 KiB, its read buffer, and answers as if the request had ended there: a
// Bind of 3,235,840 bytes came back BindComplete alone, its INSERT never ran, and a 1M
// ingest lost a batch of 1,000 facts without an error. So the first message is made
// longer, meaning the same (grow: once is enough, as the messages after it are longer
// than what it adds), so that no message but the last ends there; and a reply
// cut short some other way, without ReadyForQuery, is an error rather than no rows.
// (Splitting the request instead, as the test wire server does, is unsafe here:
// execProtocol throws at an error in the first part, before its Sync is sent, and the
// session would then skip the next statement's messages up to that one's Sync.)
async function send(db, grow, ...messages) {
  messages.push(serialize.sync());
  for (let grown = 0; endsInside(messages); grown++) {
    if (!grow || grown === 1) throw new Error("cannot frame the request around PGlite's 8 KiB reads");
    messages[0] = grow(messages[0]);
  }
  const reply = await db.execProtocol(Buffer.concat(messages));
  if (!reply.messages.some((message) => message.name === 'readyForQuery')) {
    throw Object.assign(new Error('the embedded database answered only part of a request'), {
      code: 'XX000',
    });
  }
  return reply;
}
function endsInside(messages) {
  let end = 0;
  return messages.slice(0, -1).some((message) => (end += message.length) % 8192 === 0);
}
// A Bind that names the text format for its results, which they have by default: two
// bytes longer. It ends in its count of result formats, 0.
function textResults(bind) {
  const longer = Buffer.alloc(bind.length + 2);
  longer.set(bind);
  longer.writeUInt16BE(1, bind.length - 2);
  longer.writeUInt32BE(longer.length - 1, 1);
  return longer;
}

// Statements with parameters are prepared once under a name and then only bound and
// run: PGlite's query() parses, analyses and rewrites the text on every call, which
// for the ranking statement is a tenth of its time. The most recent ones are kept.
const statements = new Map();
let named = 0;
// One statement's reply as PGlite's query() gives it. PGlite's own parseResults copies
// its table of 335 type parsers on every call: 0.24 ms, three times what a key lookup
// takes to run.
function resultOf(messages, parsers) {
  let fields = [];
  const rows = [];
  let affectedRows = 0;
  for (const message of messages) {
    if (message.name === 'rowDescription') {
      fields = message.fields.map(({ name, dataTypeID }) => ({ name, dataTypeID }));
    } else if (message.name === 'dataRow') {
      const row = {};
      message.fields.forEach((value, i) => {
        const { name, dataTypeID } = fields[i];
        const parser = parsers[dataTypeID];
        row[name] = value === null ? null : parser ? parser(value, dataTypeID) : value;
      });
      rows.push(row);
    } else if (message.name === 'commandComplete') {
      const [command, a, b] = message.text.split(' ');
      if (command === 'INSERT') affectedRows = Number(b);
      else if (['UPDATE', 'DELETE', 'COPY', 'MERGE'].includes(command)) affectedRows = Number(a);
    }
  }
  return { rows, fields, affectedRows };
}

async function prepared(db, sql, params, retried = false) {
  let statement = statements.get(sql);
  if (statement) statements.delete(sql);
  else {
    if (statements.size >= ${MAX_PREPARED}) {
      const [oldest, old] = statements.entries().next().value;
      statements.delete(oldest);
      await send(db, null, serialize.close({ type: 'S', name: old.name }));
    }
    const name = 'ff' + named++;
    const { messages } = await send(
      db,
      () => serialize.parse({ name, text: sql + ' ' }),
      serialize.parse({ name, text: sql }),
      serialize.describe({ type: 'S', name }),
    );
    statement = { name, types: parse.parseDescribeStatementResults(messages) };
  }
  statements.set(sql, statement);
  const values = params.map((value, i) => {
    if (value === null || value === undefined) return null;
    const serializer = db.serializers[statement.types[i]];
    return serializer ? serializer(value) : value.toString();
  });
  try {
    const { messages } = await send(
      db,
      textResults,
      serialize.bind({ statement: statement.name, values }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
    );
    return resultOf(messages, db.parsers);
  } catch (err) {
    // DEALLOCATE ALL (or DISCARD) dropped the statements, or a table changed under this
    // one so that its rows would change shape: it is prepared again, and run again
    // unless a transaction it was part of has failed.
    if (err.code === '26000') statements.clear();
    else if (err.code === '0A000') {
      statements.delete(sql);
      await send(db, null, serialize.close({ type: 'S', name: statement.name }));
    } else throw err;
    if (retried || db.isInTransaction()) throw err;
    return prepared(db, sql, params, true);
  }
}
function plain(err) {
  const out = { message: String(err && err.message) };
  for (const [key, value] of Object.entries(err || {})) {
    try { structuredClone(value); out[key] = value; } catch {}
  }
  return out;
}
let queue = Promise.resolve();
parentPort.on('message', (request) => {
  // One statement at a time, in order; the driver above owns transactions.
  queue = queue.then(async () => {
    try {
      const db = await opened;
      let result;
      if (request.op === 'query') result = await prepared(db, request.sql, request.params ?? []);
      else if (request.op === 'exec') result = await db.exec(request.sql);
      else { await db.close(); result = null; }
      parentPort.postMessage({ id: request.id, result });
    } catch (err) {
      parentPort.postMessage({ id: request.id, error: plain(err) });
    }
  });
});
`;
