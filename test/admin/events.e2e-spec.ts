import { createHash } from 'node:crypto';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { CATANIA, fact } from '../support/corpus';

const TOKEN = 'admin-token-for-tests-0123456789';
const CREDENTIAL = `admin:${createHash('sha256').update(TOKEN).digest('hex').slice(0, 12)}`;

describe('the audit trail of admin writes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ facts: CATANIA, env: { FRESHFACTS_ADMIN_TOKEN: TOKEN } });
  });
  afterAll(() => t.close());

  const as = (req: request.Test) => req.set('Authorization', `Bearer ${TOKEN}`);

  it('records every write with time, action, target and credential id, and pages through them', async () => {
    await as(request(t.url).post('/admin/accounts')).send({ email: 'ops@example.com' }).expect(201);
    await as(request(t.url).put('/admin/accounts/ops@example.com/plan'))
      .send({ plan: 'paid' })
      .expect(200);
    const key = await as(request(t.url).post('/admin/accounts/ops@example.com/keys'))
      .send({ name: 'ci' })
      .expect(201);
    await as(request(t.url).post('/admin/keys/revoke')).send({ key: key.body.key }).expect(200);
    await as(request(t.url).post('/admin/facts'))
      .set('Content-Type', 'application/x-ndjson')
      .send(JSON.stringify(fact('Who won the 2019 Tour de France?', 'Egan Bernal', '2019-07-28')))
      .expect(200);
    const [found] = (await as(request(t.url).get('/admin/facts')).query({ q: 'Tour de France' }))
      .body as { id: string }[];
    await as(request(t.url).delete(`/admin/facts/${found.id}`))
      .send({ reason: 'wrong year' })
      .expect(200);
    await as(request(t.url).post(`/admin/facts/${found.id}/restore`)).expect(200);
    const source = await as(request(t.url).post('/admin/sources'))
      .send({ url: 'https://example.org/feed.xml', kind: 'feed' })
      .expect(201);
    await as(request(t.url).delete(`/admin/sources/${source.body.id}`)).expect(200);
    // Refused writes change nothing and are not recorded.
    await as(request(t.url).delete(`/admin/facts/${found.id}/`))
      .send({})
      .expect(422);
    await as(request(t.url).post('/admin/accounts')).send({ email: 'ops@example.com' }).expect(409);
    // Reads are not writes.
    await as(request(t.url).get('/admin/accounts')).expect(200);

    const events: { id: string; at: string; action: string; target: string; actor: string }[] = [];
    let before: string | null = null;
    do {
      const page: request.Response = await as(request(t.url).get('/admin/events'))
        .query(before ? { limit: 3, before } : { limit: 3 })
        .expect(200);
      expect(page.body.events.length).toBeLessThanOrEqual(3);
      events.push(...page.body.events);
      before = page.body.next_before;
    } while (before);

    expect(events.map((event) => [event.action, event.target]).reverse()).toEqual([
      ['account.create', 'ops@example.com'],
      ['account.set-plan', 'ops@example.com'],
      ['key.create', 'ops@example.com'],
      ['key.revoke', expect.stringMatching(/^\d+$/)],
      ['facts.push', 'facts'],
      ['fact.retract', found.id],
      ['fact.restore', found.id],
      ['source.add', 'https://example.org/feed.xml'],
      ['source.remove', 'https://example.org/feed.xml'],
    ]);
    for (const event of events) {
      expect(event.actor).toBe(CREDENTIAL);
      expect(Date.now() - Date.parse(event.at)).toBeLessThan(60_000);
    }
    const text = JSON.stringify(events);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(key.body.key);
    expect(events.find((event) => event.action === 'fact.retract')).toMatchObject({
      detail: { reason: 'wrong year' },
    });
  });

  it('refuses bad paging parameters and callers without the token', async () => {
    await as(request(t.url).get('/admin/events')).query({ limit: 0 }).expect(422);
    await as(request(t.url).get('/admin/events')).query({ limit: 'ten' }).expect(422);
    await as(request(t.url).get('/admin/events')).query({ before: 'x' }).expect(422);
    await request(t.url).get('/admin/events').expect(401);
  });
});
