import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { BILLING_DDL } from '../../migrations/1763856000000-Billing';
import { ACCOUNTS_DDL } from '../../migrations/1763769600000-Init';
import { UsageRepository } from '../../src/billing/usage.repository';

// The counting statement under real concurrency: the machine's PostgreSQL 15 runs
// statements truly in parallel over 16 connections, where PGlite serialises them.
// The billing tables need no pgvector, so they are created here from the migrations' DDL.
describe('the usage counter on PostgreSQL 15 with 16 connections', () => {
  const url = process.env.FRESHFACTS_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `ff_quota_${randomBytes(4).toString('hex')}`;
  let db: DataSource;
  let setup: DataSource;

  beforeAll(async () => {
    setup = await new DataSource({ type: 'postgres', url }).initialize();
    await setup.query(`CREATE SCHEMA ${schema}`);
    db = await new DataSource({
      type: 'postgres',
      url,
      poolSize: 16,
      extra: { options: `-c search_path=${schema}` },
    }).initialize();
    for (const statement of [...ACCOUNTS_DDL, ...BILLING_DDL]) await db.query(statement);
  });
  afterAll(async () => {
    await db.destroy();
    await setup.query(`DROP SCHEMA ${schema} CASCADE`);
    await setup.destroy();
  });

  it('admits exactly the limit out of 1,100 concurrent attempts', async () => {
    const [{ id }] = await db.query<{ id: string }[]>(
      `INSERT INTO accounts (email) VALUES ('pg@example.com') RETURNING id`,
    );
    const usage = new UsageRepository(db);
    const results = await Promise.all(
      Array.from({ length: 1100 }, () => usage.charge(id, '2026-11-01', '2026-11-22', 1000)),
    );
    const admitted = results.filter((count) => count !== null);
    expect(admitted).toHaveLength(1000);
    expect(new Set(admitted).size).toBe(1000); // every admitted call saw its own count
    expect(await usage.monthCalls(id, '2026-11-01')).toBe(1000);
    expect(await usage.daily(id, '2026-11-01')).toEqual([{ day: '2026-11-22', calls: 1000 }]);
  }, 60_000);
});
