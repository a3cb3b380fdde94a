import { parentPort, workerData } from 'node:worker_threads';
import { parse, PGlite, protocol } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import type { DbResult, ThreadReply, ThreadRequest, WorkerInput } from './pglite-thread';

/**
 * The body of the database thread (see `PGliteThread`): one PGlite, and statements
 * with parameters prepared once under a name, then only bound and run. It speaks to
 * PGlite below its `query()`, through `execProtocol` and its protocol helpers; the
 * parts of PGlite this relies on are pinned by test/database/pglite-internals.spec.ts.
 */

/** Named statements the database thread keeps prepared at once. */
const MAX_PREPARED = 200;

const { serialize } = protocol;

type Message = Awaited<ReturnType<PGlite['execProtocol']>>['messages'][number];
type RowDescription = InstanceType<typeof protocol.messages.RowDescriptionMessage>;
type DataRow = InstanceType<typeof protocol.messages.DataRowMessage>;
type CommandComplete = InstanceType<typeof protocol.messages.CommandCompleteMessage>;
type Field = { name: string; dataTypeID: number };

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
export async function send(
  db: PGlite,
  grow: ((message: Uint8Array) => Uint8Array) | null,
  ...messages: Uint8Array[]
): Promise<Message[]> {
  messages.push(serialize.sync());
  for (let grown = 0; endsInside(messages); grown++) {
    if (!grow || grown === 1) {
      throw new Error("cannot frame the request around PGlite's 8 KiB reads");
    }
    messages[0] = grow(messages[0]);
  }
  const reply = await db.execProtocol(Buffer.concat(messages));
  if (!reply.messages.some((message) => message.name === 'readyForQuery')) {
    throw Object.assign(new Error('the embedded database answered only part of a request'), {
      code: 'XX000',
    });
  }
  return reply.messages;
}

/** Whether a message other than the last ends on a multiple of 8 KiB of the request. */
export function endsInside(messages: Uint8Array[]): boolean {
  let end = 0;
  return messages.slice(0, -1).some((message) => (end += message.length) % 8192 === 0);
}

/**
 * A Bind that names the text format for its results, which they have by default: two
 * bytes longer. It ends in its count of result formats, 0.
 */
export function textResults(bind: Uint8Array): Uint8Array {
  const longer = Buffer.alloc(bind.length + 2);
  longer.set(bind);
  longer.writeUInt16BE(1, bind.length - 2);
  longer.writeUInt32BE(longer.length - 1, 1);
  return longer;
}

/**
 * One statement's reply as PGlite's query() gives it. PGlite's own parseResults copies
 * its table of 335 type parsers on every call: 0.24 ms, three times what a key lookup
 * takes to run.
 */
function resultOf(messages: Message[], parsers: PGlite['parsers']): DbResult {
  let fields: Field[] = [];
  const rows: Record<string, unknown>[] = [];
  let affectedRows = 0;
  for (const message of messages) {
    if (message.name === 'rowDescription') {
      fields = (message as RowDescription).fields.map(({ name, dataTypeID }) => ({
        name,
        dataTypeID,
      }));
    } else if (message.name === 'dataRow') {
      rows.push(rowOf((message as DataRow).fields, fields, parsers));
    } else if (message.name === 'commandComplete') {
      affectedRows = affectedRowsOf((message as CommandComplete).text) ?? affectedRows;
    }
  }
  return { rows, fields, affectedRows };
}

function rowOf(
  values: (string | null)[],
  fields: Field[],
  parsers: PGlite['parsers'],
): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  values.forEach((value, i) => {
    const { name, dataTypeID } = fields[i];
    const parser = parsers[dataTypeID];
    row[name] = value === null ? null : parser ? parser(value, dataTypeID) : value;
  });
  return row;
}

/** The count of a CommandComplete's tag (`INSERT 0 3`, `UPDATE 2`), where it has one. */
function affectedRowsOf(tag: string): number | undefined {
  const [command, a, b] = tag.split(' ');
  if (command === 'INSERT') return Number(b);
  if (['UPDATE', 'DELETE', 'COPY', 'MERGE'].includes(command)) return Number(a);
  return undefined;
}

/**
 * Statements with parameters are prepared once under a name and then only bound and
 * run: PGlite's query() parses, analyses and rewrites the text on every call, which
 * for the ranking statement is a tenth of its time. The most recent ones are kept.
 */
export class PreparedStatements {
  private readonly statements = new Map<string, { name: string; types: number[] }>();
  private named = 0;

  constructor(private readonly db: PGlite) {}

  async query(sql: string, params: unknown[], retried = false): Promise<DbResult> {
    const statement = await this.statement(sql);
    const values = params.map((value, i) => this.serialized(value, statement.types[i]));
    try {
      const messages = await send(
        this.db,
        textResults,
        serialize.bind({ statement: statement.name, values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
      );
      return resultOf(messages, this.db.parsers);
    } catch (err) {
      // DEALLOCATE ALL (or DISCARD) dropped the statements, or a table changed under this
      // one so that its rows would change shape: it is prepared again, and run again
      // unless a transaction it was part of has failed.
      const code = (err as { code?: string }).code;
      if (code === '26000') this.statements.clear();
      else if (code === '0A000') await this.forget(sql, statement.name);
      else throw err;
      if (retried || this.db.isInTransaction()) throw err;
      return this.query(sql, params, true);
    }
  }

  /** The statement prepared for `sql`, now the most recent. */
  private async statement(sql: string): Promise<{ name: string; types: number[] }> {
    let statement = this.statements.get(sql);
    if (statement) this.statements.delete(sql);
    else {
      if (this.statements.size >= MAX_PREPARED) {
        const [oldest, old] = this.statements.entries().next().value!;
        await this.forget(oldest, old.name);
      }
      statement = await this.prepare(sql);
    }
    this.statements.set(sql, statement);
    return statement;
  }

  private async prepare(sql: string): Promise<{ name: string; types: number[] }> {
    const name = `ff${this.named++}`;
    const messages = await send(
      this.db,
      () => serialize.parse({ name, text: `${sql} ` }),
      serialize.parse({ name, text: sql }),
      serialize.describe({ type: 'S', name }),
    );
    return { name, types: parse.parseDescribeStatementResults(messages) };
  }

  private async forget(sql: string, name: string): Promise<void> {
    this.statements.delete(sql);
    await send(this.db, null, serialize.close({ type: 'S', name }));
  }

  /** A parameter in PGlite's text form for its type, as its query() would send it. */
  private serialized(value: unknown, type: number): string | null {
    if (value === null || value === undefined) return null;
    const serializer = this.db.serializers[type];
    return serializer ? serializer(value) : (value as { toString(): string }).toString();
  }
}

/** An error as the other thread can receive it: its fields that survive structuredClone. */
function plain(err: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { message: String(err && (err as Error).message) };
  for (const [key, value] of Object.entries(err ?? {})) {
    try {
      structuredClone(value);
      out[key] = value;
    } catch {
      // left out: it cannot cross the thread
    }
  }
  return out;
}

/** Answers the other thread's requests one at a time, in order; it owns transactions. */
export function serve(port: NonNullable<typeof parentPort>, input: WorkerInput): void {
  const opened = PGlite.create(input.dataDir, { extensions: { vector } });
  let statements: PreparedStatements | undefined;
  let queue = Promise.resolve();
  const answer = async (request: ThreadRequest): Promise<unknown> => {
    const db = await opened;
    if (request.op === 'query') {
      return (statements ??= new PreparedStatements(db)).query(request.sql, request.params ?? []);
    }
    if (request.op === 'exec') return db.exec(request.sql);
    await db.close();
    return null;
  };
  port.on('message', (request: ThreadRequest & { id: number }) => {
    queue = queue.then(async () => {
      let reply: ThreadReply;
      try {
        reply = { id: request.id, result: await answer(request) };
      } catch (err) {
        reply = { id: request.id, error: plain(err) };
      }
      port.postMessage(reply);
    });
  });
}

const input = workerData as WorkerInput | undefined;
if (parentPort && input?.role === 'pglite') serve(parentPort, input);
