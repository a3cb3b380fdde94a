import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { BILLING_DDL } from '../../migrations/1763856000000-Billing';
import { DASHBOARD_DDL } from '../../migrations/1763942400000-Dashboard';
import { ACCOUNTS_DDL } from '../../migrations/1763769600000-Init';
import { LOGIN_ATTEMPTS, LoginThrottleRepository } from '../../src/auth/login-throttle.repository';

// The login throttle counts an attempt before the password is checked, in one
// statement; on the machine's PostgreSQL 15 with 16 connections, a burst of guesses
// shows whether any slip past the limit.
describe('the login throttle on PostgreSQL 15 with 16 connections', () => {
  const url = process.env.FRESHFACTS_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `ff_login_${randomBytes(4).toString('hex')}`;
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
    for (const statement of [...ACCOUNTS_DDL, ...BILLING_DDL, ...DASHBOARD_DDL]) {
      await db.query(statement);
    }
  });
  afterAll(async () => {
    await db.destroy();
    await setup.query(`DROP SCHEMA ${schema} CASCADE`);
    await setup.destroy();
  });

  it(`lets exactly ${LOGIN_ATTEMPTS} of 200 concurrent attempts through`, async () => {
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
