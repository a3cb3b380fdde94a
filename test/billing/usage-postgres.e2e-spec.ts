import { DataSource } from 'typeorm';
import { BILLING_DDL } from '../../migrations/1763856000000-Billing';
import { DASHBOARD_DDL } from '../../migrations/1763942400000-Dashboard';
import { ACCOUNTS_DDL } from '../../migrations/1763769600000-Init';
import { PAYMENTS_DDL } from '../../migrations/1764028800000-Payments';
import { LOGIN_ATTEMPTS, LoginThrottleRepository } from '../../src/auth/login-throttle.repository';
import { PaymentSpendsRepository } from '../../src/billing/payments/payment-spends.repository';
import { UsageRepository } from '../../src/billing/usage.repository';
import { postgresSchema } from '../support/postgres';

// The statements that must decide once under real concurrency: the machine's
// PostgreSQL 15 runs them truly in parallel over 16 connections, where PGlite
// serialises them. These tables need no pgvector, so they are created here from the
// migrations' DDL.
describe('the counting statements on PostgreSQL 15 with 16 connections', () => {
  let db: DataSource;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await postgresSchema('counts', [
      ...ACCOUNTS_DDL,
      ...BILLING_DDL,
      ...DASHBOARD_DDL,
      ...PAYMENTS_DDL,
    ]));
  });
  afterAll(() => drop());

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

  it('counts every one of 1,100 concurrent uncapped calls, together in fewer statements', async () => {
    const [{ id }] = await db.query<{ id: string }[]>(
      `INSERT INTO accounts (email) VALUES ('paid-pg@example.com') RETURNING id`,
    );
    const usage = new UsageRepository(db);
    const statements = jest.spyOn(db, 'query');
    const results = await Promise.all(
      Array.from({ length: 1100 }, () => usage.charge(id, '2026-11-01', '2026-11-22', null)),
    );
    const used = statements.mock.calls.length;
    statements.mockRestore();
    // Each call was answered with its own count, all of them counted, in a group commit.
    expect([...results].sort((a, b) => a! - b!)).toEqual(
      Array.from({ length: 1100 }, (_, i) => i + 1),
    );
    expect(used).toBeLessThan(1100);
    expect(await usage.monthCalls(id, '2026-11-01')).toBe(1100);
    expect(await usage.daily(id, '2026-11-01')).toEqual([{ day: '2026-11-22', calls: 1100 }]);
    // A statement that fails fails each of its calls, and counts none of them.
    const failing = jest.spyOn(db, 'query').mockRejectedValueOnce(new Error('server gone'));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 3 }, () => usage.charge(id, '2026-11-01', '2026-11-22', null)),
    );
    failing.mockRestore();
    expect(outcomes[0].status).toBe('rejected');
    expect(await usage.monthCalls(id, '2026-11-01')).toBe(
      1100 + outcomes.filter((o) => o.status === 'fulfilled').length,
    );
    // Calls of two accounts or two days are never counted together.
    const [{ id: other }] = await db.query<{ id: string }[]>(
      `INSERT INTO accounts (email) VALUES ('paid-pg-2@example.com') RETURNING id`,
    );
    await Promise.all([
      usage.charge(id, '2026-11-01', '2026-11-23', null),
      usage.charge(other, '2026-11-01', '2026-11-23', null),
      usage.charge(other, '2026-11-01', '2026-11-23', null),
    ]);
    expect(await usage.monthCalls(other, '2026-11-01')).toBe(2);
    expect(await usage.daily(id, '2026-11-23')).toEqual([{ day: '2026-11-23', calls: 1 }]);
  }, 60_000);

  it('spends one payment challenge once out of 20 concurrent claims', async () => {
    const spends = new PaymentSpendsRepository(db);
    const expires = new Date(Date.now() + 60_000);
    const claims = await Promise.all(
      Array.from({ length: 20 }, () => spends.claim('challenge-1', expires)),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    await spends.release('challenge-1');
    expect(await spends.claim('challenge-1', expires)).toBe(true);
  });

  it(`lets exactly ${LOGIN_ATTEMPTS} of 200 concurrent login attempts through`, async () => {
    const throttle = new LoginThrottleRepository(db);
    const waits = await Promise.all(
      Array.from({ length: 200 }, () => throttle.take('target@example.com')),
    );
    expect(waits.filter((wait) => wait === 0)).toHaveLength(LOGIN_ATTEMPTS);
    for (const wait of waits.filter(Boolean)) {
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(15 * 60);
    }
    await throttle.clear('target@example.com');
    expect(await throttle.take('target@example.com')).toBe(0);
  });
});
