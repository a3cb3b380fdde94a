import request from 'supertest';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { Clock } from '../../src/billing/clock';
import { AccountsService } from '../../src/accounts/accounts.service';
import { UsageRepository } from '../../src/billing/usage.repository';
import { SearchService } from '../../src/search/search.service';
import { startApp, TestApp } from '../support/app';
import { DashboardClient } from '../support/dashboard';
import { CATANIA } from '../support/corpus';
import { count, fire } from '../support/load';

describe('the free-tier monthly quota', () => {
  let t: TestApp;
  let clock: jest.SpyInstance<Date, []>;
  beforeAll(async () => {
    t = await startApp({ facts: CATANIA });
    clock = jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date('2026-11-15T12:00:00Z'));
  });
  afterAll(() => t.close());

  it('answers exactly 1,000 of 1,100 concurrent calls, then 402 with the limit and the billing page', async () => {
    const owner = await new DashboardClient(t.url).signUp('free@example.com');
    const key = await owner.createKey('burst');
    const [account] = await t.app.get(ApiKeysService).list('free@example.com');
    const statuses = await fire([t.url], key, 1100, 16);
    expect(count(statuses, 200)).toBe(1000);
    expect(count(statuses, 402)).toBe(100);
    const refused = await request(t.url)
      .post('/api/research')
      .set('Authorization', `Bearer ${key}`)
      .send({ query: 'q' })
      .expect(402);
    expect(refused.body).toMatchObject({
      type: '/problems/quota-exceeded',
      status: 402,
      limit: 1000,
    });
    expect(refused.body.detail).toContain('1,000 calls');
    expect(refused.body.billing_url).toMatch(/\/dashboard\/billing$/);
    expect(refused.headers['ratelimit']).toMatch(/^"monthly";r=0;t=\d+$/);
    expect(await t.app.get(UsageRepository).monthCalls(account.accountId, '2026-11-01')).toBe(1000);
    expect(await owner.callsThisMonth()).toBe('1,000');
    const page = await owner.agent.get('/dashboard/usage').expect(200);
    expect(page.text).toContain('<strong>0</strong> left');
    expect(page.text).toContain('data-day="2026-11-15" data-calls="1000"');
  }, 120_000);

  it('tells a keyed caller its remaining calls and when they reset', async () => {
    const { key } = await t.app.get(ApiKeysService).create('headers@example.com');
    const res = await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key}`)
      .send({ query: 'Catania' })
      .expect(200);
    // 2026-11-15T12:00Z to 2026-12-01T00:00Z is 15.5 days.
    expect(res.headers['ratelimit-policy']).toBe('"monthly";q=1000;w=1339200');
    expect(res.headers['ratelimit']).toBe('"monthly";r=999;t=1339200');
  });

  it('never counts rejected calls: invalid bodies, and searches that fail', async () => {
    const { key } = await t.app.get(ApiKeysService).create('rejected@example.com');
    const [account] = await t.app.get(ApiKeysService).list('rejected@example.com');
    const usage = t.app.get(UsageRepository);
    await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key}`)
      .send({ query: '' })
      .expect(422);
    await request(t.url)
      .post('/api/research')
      .set('Authorization', `Bearer ${key}`)
      .send({ k: 'x' })
      .expect(422);
    await request(t.url)
      .post('/v1/search')
      .set('Authorization', 'Bearer ff_live_wrong')
      .send({ query: 'q' })
      .expect(401);
    const failure = jest
      .spyOn(t.app.get(SearchService), 'find')
      .mockRejectedValueOnce(new Error('disk on fire'));
    await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key}`)
      .send({ query: 'Catania' })
      .expect(500);
    failure.mockRestore();
    expect(await usage.monthCalls(account.accountId, '2026-11-01')).toBe(0);
    await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key}`)
      .send({ query: 'Catania' })
      .expect(200);
    expect(await usage.monthCalls(account.accountId, '2026-11-01')).toBe(1);
    expect(await usage.daily(account.accountId, '2026-11-01')).toEqual([
      { day: '2026-11-15', calls: 1 },
    ]);
  });

  it('starts counting again in a new month', async () => {
    const { key } = await t.app.get(ApiKeysService).create('rollover@example.com');
    const [account] = await t.app.get(ApiKeysService).list('rollover@example.com');
    const usage = t.app.get(UsageRepository);
    for (let i = 0; i < 1000; i++)
      await usage.charge(account.accountId, '2026-11-01', '2026-11-15', 1000);
    await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key}`)
      .send({ query: 'Catania' })
      .expect(402);
    clock.mockReturnValue(new Date('2026-12-01T00:00:01Z'));
    try {
      const res = await request(t.url)
        .post('/v1/search')
        .set('Authorization', `Bearer ${key}`)
        .send({ query: 'Catania' })
        .expect(200);
      expect(res.headers['ratelimit']).toMatch(/^"monthly";r=999;/);
      expect(await usage.monthCalls(account.accountId, '2026-12-01')).toBe(1);
    } finally {
      clock.mockReturnValue(new Date('2026-11-15T12:00:00Z'));
    }
  });

  it('counts a paid call while it runs: a failed search is given back, a failed count answers no call', async () => {
    const { key } = await t.app.get(ApiKeysService).create('paid-fail@example.com');
    await t.app.get(AccountsService).setPlan('paid-fail@example.com', 'paid');
    const [account] = await t.app.get(ApiKeysService).list('paid-fail@example.com');
    const usage = t.app.get(UsageRepository);
    const search = () =>
      request(t.url)
        .post('/v1/search')
        .set('Authorization', `Bearer ${key}`)
        .send({ query: 'Catania' });
    const failure = jest
      .spyOn(t.app.get(SearchService), 'find')
      .mockRejectedValueOnce(new Error('disk on fire'));
    await search().expect(500);
    failure.mockRestore();
    expect(await usage.monthCalls(account.accountId, '2026-11-01')).toBe(0);
    const lost = jest.spyOn(usage, 'charge').mockRejectedValueOnce(new Error('counter gone'));
    const found = jest.spyOn(t.app.get(SearchService), 'find');
    await search().expect(500);
    expect(found).toHaveBeenCalledTimes(1); // it ran, and its answer was not sent
    lost.mockRestore();
    found.mockRestore();
    expect(await usage.monthCalls(account.accountId, '2026-11-01')).toBe(0);
    const res = await search().expect(200);
    expect(res.body.results.length).toBeGreaterThan(0);
    expect(await usage.monthCalls(account.accountId, '2026-11-01')).toBe(1);
  });

  it('lets a paid account pass 1,000 calls, still recording them', async () => {
    const { key } = await t.app.get(ApiKeysService).create('paid@example.com');
    await t.app.get(AccountsService).setPlan('Paid@Example.com', 'paid');
    const [account] = await t.app.get(ApiKeysService).list('paid@example.com');
    const usage = t.app.get(UsageRepository);
    for (let i = 0; i < 1000; i++)
      await usage.charge(account.accountId, '2026-11-01', '2026-11-15', null);
    const res = await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${key}`)
      .send({ query: 'Catania' })
      .expect(200);
    expect(res.headers['ratelimit']).toBeUndefined();
    expect(await usage.monthCalls(account.accountId, '2026-11-01')).toBe(1001);
    expect(await usage.daily(account.accountId, '2026-11-01')).toEqual([
      { day: '2026-11-15', calls: 1001 },
    ]);
  });
});
