import { extname, join } from 'node:path';
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

/** What this thread asks of the database thread, and how it answers. */
export type ThreadRequest =
  { op: 'query'; sql: string; params?: unknown[] } | { op: 'exec'; sql: string } | { op: 'close' };
export type ThreadReply = { id: number; result?: unknown; error?: Record<string, unknown> };

/** The database thread's `workerData`. */
export interface WorkerInput {
  role: 'pglite';
  dataDir: string;
}

/**
 * PGlite in a worker thread. PGlite runs PostgreSQL as WebAssembly on the thread that
 * calls it: in-process, a search's 10 ms of SQL held the event loop, so HTTP parsing,
 * auth and JSON for the other callers waited behind it and the service used one of
 * the machine's cores. On its own thread the database and the HTTP work overlap.
 *
 * The thread runs `pglite-worker`, compiled next to this module (see `startWorker`).
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
    worker.on('message', (reply: ThreadReply) => {
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
    const thread = new PGliteThread(startWorker({ role: 'pglite', dataDir }));
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

  private call(request: ThreadRequest): Promise<unknown> {
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

/**
 * The database thread, on `pglite-worker.js` beside this module when it runs compiled
 * (dist/). Where it runs from its TypeScript source instead (under ts-jest), the thread
 * loads `pglite-worker.ts` through TypeScript's transpiler, so that the tests run the
 * source they see rather than whatever dist/ was last built from.
 */
function startWorker(workerData: WorkerInput): Worker {
  const ext = extname(__filename);
  const worker = join(__dirname, `pglite-worker${ext}`);
  if (ext !== '.ts') return new Worker(worker, { workerData });
  return new Worker(TRANSPILING_LOADER, {
    eval: true,
    workerData: { ...workerData, worker, typescript: require.resolve('typescript') },
  });
}

/** Loads the worker's .ts modules in the thread, transpiled (CommonJS, as tsc builds them). */
const TRANSPILING_LOADER = `
const { readFileSync } = require('node:fs');
const { workerData } = require('node:worker_threads');
const ts = require(workerData.typescript);
const compilerOptions = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true };
require.extensions['.ts'] = (module, fileName) => {
  const { outputText } = ts.transpileModule(readFileSync(fileName, 'utf8'), { compilerOptions, fileName });
  module._compile(outputText, fileName);
};
require(workerData.worker);
`;
