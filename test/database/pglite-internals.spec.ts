import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse, PGlite, protocol } from '@electric-sql/pglite';
import { textResults } from '../../src/database/pglite-worker';

/**
 * The database thread (src/database/pglite-worker.ts) speaks to PGlite below its
 * query(), through parts that PGlite exports but does not document as its API, and
 * works around one of its bugs. Each test here pins one of them, so that a new PGlite
 * fails here, by name, rather than somewhere in a search:
 *
 * - `PGlite#execProtocol(bytes)`: runs a whole extended-protocol request and answers
 *   `{ messages }`, parsed, with PostgreSQL's error fields thrown as an error;
 * - `protocol.serialize.{parse, describe, bind, execute, close, sync}`: the request's
 *   messages, a Bind ending in its count of result formats (grown by `textResults`);
 * - `parse.parseDescribeStatementResults(messages)`: a statement's parameter types;
 * - `PGlite#serializers` and `PGlite#parsers`: type OID → text form, text → value;
 * - `PGlite#isInTransaction()`;
 * - the 8 KiB reads: a message that ends on a multiple of 8 KiB, other than the last,
 *   loses the rest of the request (what `send` frames around).
 */
describe('the PGlite internals the database thread relies on', () => {
  const { serialize } = protocol;
  let db: PGlite;
  const run = async (...messages: Uint8Array[]) =>
    (await db.execProtocol(Buffer.concat([...messages, serialize.sync()]))).messages;
  const names = (messages: { name: string }[]) =>
    messages.map((message) => message.name).filter((name) => name !== 'notice');
  const find = (messages: { name: string }[], name: string) =>
    messages.find((message) => message.name === name);

  beforeAll(async () => {
    db = await PGlite.create();
    await db.exec(`CREATE TABLE t (id int PRIMARY KEY, body text)`);
  });
  afterAll(() => db.close());

  it('is the exact version package.json pins', () => {
    const ours = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8'));
    const installed = JSON.parse(
      readFileSync(
        join(dirname(require.resolve('@electric-sql/pglite')), '../package.json'),
        'utf8',
      ),
    );
    expect(ours.dependencies['@electric-sql/pglite']).toBe(installed.version);
  });

  it('prepares a named statement and describes its parameter types', async () => {
    const messages = await run(
      serialize.parse({ name: 'pin1', text: `SELECT $1::int AS n, $2::text AS body` }),
      serialize.describe({ type: 'S', name: 'pin1' }),
    );
    expect(names(messages)).toEqual([
      'parseComplete',
      'parameterDescription',
      'rowDescription',
      'readyForQuery',
    ]);
    expect(parse.parseDescribeStatementResults(messages)).toEqual([23, 25]);
  });

  it('binds and runs it, answering fields, text rows and the command tag', async () => {
    const bind = serialize.bind({ statement: 'pin1', values: ['7', null] });
    // textResults relies on this layout: the length after the type byte, then the
    // count of result formats, 0, last.
    expect(Buffer.from(bind).readUInt32BE(1)).toBe(bind.length - 1);
    expect([...bind.subarray(-2)]).toEqual([0, 0]);
    for (const message of [bind, textResults(bind)]) {
      const messages = await run(message, serialize.describe({ type: 'P' }), serialize.execute({}));
      expect(names(messages)).toEqual([
        'bindComplete',
        'rowDescription',
        'dataRow',
        'commandComplete',
        'readyForQuery',
      ]);
      expect(find(messages, 'rowDescription')).toMatchObject({
        fields: [
          { name: 'n', dataTypeID: 23 },
          { name: 'body', dataTypeID: 25 },
        ],
      });
      expect(find(messages, 'dataRow')).toMatchObject({ fields: ['7', null] });
      expect(find(messages, 'commandComplete')).toMatchObject({ text: 'SELECT 1' });
    }
  });

  it('tags writes with their row counts and closes a statement', async () => {
    const insert = await run(
      serialize.parse({ name: 'pin2', text: `INSERT INTO t VALUES ($1, 'a'), ($1 + 1, 'b')` }),
      serialize.bind({ statement: 'pin2', values: ['1'] }),
      serialize.execute({}),
      serialize.close({ type: 'S', name: 'pin2' }),
    );
    expect(find(insert, 'commandComplete')).toMatchObject({
      text: 'INSERT 0 2',
    });
    expect(names(insert)).toContain('closeComplete');
    await expect(run(serialize.bind({ statement: 'pin2', values: ['5'] }))).rejects.toMatchObject({
      code: '26000',
    });
  });

  it("throws PostgreSQL's error with its fields, and the session goes on", async () => {
    const failed = await run(
      serialize.parse({ text: `INSERT INTO t VALUES ($1, 'c')` }),
      serialize.bind({ values: ['1'] }),
      serialize.execute({}),
    ).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(Error);
    expect(failed).toMatchObject({ code: '23505', constraint: 't_pkey', table: 't' });
    expect(names(await run(serialize.parse({ text: 'SELECT 1' })))).toEqual([
      'parseComplete',
      'readyForQuery',
    ]);
  });

  it('keeps its type tables by OID: a parameter to text, a text value to JavaScript', () => {
    const day = new Date('2024-02-29T00:00:00.000Z');
    expect(db.serializers[16](true)).toBe('t');
    expect(db.serializers[1082](day)).toBe('2024-02-29T00:00:00.000Z');
    expect(db.serializers[3802]({ a: 1 })).toBe('{"a":1}');
    expect(db.serializers[1009](['a', 'b'])).toBe('{"a","b"}');
    expect(db.parsers[23]('42', 23)).toBe(42);
    expect(db.parsers[20]('9007199254740993', 20)).toBe(9007199254740993n);
    expect(db.parsers[1082]('2024-02-29', 1082)).toEqual(day);
    expect(db.parsers[3802]('{"a":1}', 3802)).toEqual({ a: 1 });
  });

  it('says whether a transaction is open', async () => {
    expect(db.isInTransaction()).toBe(false);
    await db.exec('BEGIN');
    await db.exec('SELECT 1/0').catch(() => undefined);
    expect(db.isInTransaction()).toBe(true);
    await db.exec('ROLLBACK');
    expect(db.isInTransaction()).toBe(false);
  });

  // If this fails, PGlite reads whole requests now (0.5.14 does): send()'s framing may go.
  it('loses the rest of a request after a message that ends on 8 KiB, but not after the last', async () => {
    const insert = (n: number) => [
      serialize.parse({ text: `SELECT length($1::text) AS n` }),
      serialize.bind({ values: ['x'.repeat(n)] }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
    ];
    const endingAt = (index: number) => {
      for (let n = 8000; ; n++) {
        const messages = [...insert(n), serialize.sync()];
        const end = messages.slice(0, index + 1).reduce((sum, message) => sum + message.length, 0);
        if (end % 8192 === 0) return insert(n);
      }
    };
    const cut = await run(...endingAt(1));
    expect(names(cut)).toEqual(['parseComplete', 'bindComplete']);
    expect(names(await run())).toEqual(['readyForQuery']);
    const whole = await run(...endingAt(4));
    expect(names(whole)).toEqual([
      'parseComplete',
      'bindComplete',
      'rowDescription',
      'dataRow',
      'commandComplete',
      'readyForQuery',
    ]);
  });
});
