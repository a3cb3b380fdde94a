import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { pgliteDriver } from '../../src/database/pglite-pool';
import { PGliteThread } from '../../src/database/pglite-thread';

describe('TypeORM over the one embedded session', () => {
  let dir: string;
  let thread: PGliteThread;
  let db: DataSource;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'freshfacts-pool-'));
    thread = await PGliteThread.open(dir);
    db = await new DataSource({ type: 'postgres', driver: pgliteDriver(thread) }).initialize();
    await db.query(`CREATE TABLE ledger (who text, amount int)`);
  });
  afterAll(async () => {
    await db.destroy();
    await thread.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => db.query(`TRUNCATE ledger`));

  it("keeps other callers' statements out of an open transaction, and loses nothing of theirs", async () => {
    let inside!: () => void;
    const entered = new Promise<void>((done) => (inside = done));
    const rolledBack = db
      .transaction(async (tx) => {
        await tx.query(`INSERT INTO ledger VALUES ('tx', 1)`);
        inside();
        // Others ask while the transaction is open; none of theirs may land in it.
        await new Promise((done) => setTimeout(done, 50));
        const seen: { n: number }[] = await tx.query(`SELECT count(*)::int AS n FROM ledger`);
        expect(seen[0].n).toBe(1);
        throw new Error('changed my mind');
      })
      .catch((err: Error) => err.message);
    await entered;
    const others = Array.from({ length: 20 }, (_, i) =>
      db.query(`INSERT INTO ledger VALUES ('other', $1)`, [i]),
    );
    await Promise.all(others);
    expect(await rolledBack).toBe('changed my mind');
    const rows: { who: string; n: number }[] = await db.query(
      `SELECT who, count(*)::int AS n FROM ledger GROUP BY who`,
    );
    expect(rows).toEqual([{ who: 'other', n: 20 }]);
  });

  it('runs concurrent transactions one after the other, each whole', async () => {
    const transfers = Array.from({ length: 10 }, (_, i) =>
      db.transaction(async (tx) => {
        const [{ total }]: { total: number }[] = await tx.query(
          `SELECT coalesce(sum(amount), 0)::int AS total FROM ledger`,
        );
        await tx.query(`INSERT INTO ledger VALUES ($1, $2)`, [`t${i}`, total + 1]);
      }),
    );
    const reads = Array.from({ length: 10 }, () =>
      db.query(`SELECT count(*)::int AS n FROM ledger`),
    );
    await Promise.all([...transfers, ...reads]);
    const amounts: { amount: number }[] = await db.query(
      `SELECT amount FROM ledger ORDER BY amount`,
    );
    // Each transaction read the sum of all before it: 1, 2, 4, 8, …
    expect(amounts.map((row) => row.amount)).toEqual(Array.from({ length: 10 }, (_, i) => 2 ** i));
  });

  it('answers a failed statement with its error and goes on with the others', async () => {
    const results = await Promise.allSettled([
      db.query(`INSERT INTO ledger VALUES ('a', 1)`),
      db.query(`INSERT INTO ledger VALUES ('b', 'not a number')`),
      db.query(`INSERT INTO ledger VALUES ('c', 3)`),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: '22P02' });
    const rows: { who: string }[] = await db.query(`SELECT who FROM ledger ORDER BY who`);
    expect(rows.map((row) => row.who)).toEqual(['a', 'c']);
  });
});
