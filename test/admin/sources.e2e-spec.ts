import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { UpstreamServer } from '../support/upstream';

const TOKEN = 'admin-token-for-tests-0123456789';
const HONG_KONG = 'wikidata/entitydata/Q8646_hong-kong.json';

describe('sources through the admin API while the service runs', () => {
  let upstream: UpstreamServer;
  let t: TestApp;
  beforeAll(async () => {
    upstream = await new UpstreamServer().start();
    upstream.labels = { Q19217: 'Carrie Lam', Q15023: 'Leung Chun-ying' };
    t = await startApp({
      env: {
        FRESHFACTS_ADMIN_TOKEN: TOKEN,
        FRESHFACTS_WIKIDATA_API: `${upstream.url}/w/api.php`,
        FRESHFACTS_FETCH_CONTACT: 'ops@freshfacts.test',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await upstream.stop();
  });

  const as = (req: request.Test) => req.set('Authorization', `Bearer ${TOKEN}`);
  const list = async () =>
    (await as(request(t.url).get('/admin/sources')).expect(200)).body as {
      id: string;
      url: string;
      last_status: string | null;
      facts_added: number;
    }[];

  it('adds, lists, runs now without waiting for the fetch, and removes a source', async () => {
    const added = await as(request(t.url).post('/admin/sources'))
      .send({ url: upstream.file(HONG_KONG), kind: 'wikidata', every: '1d' })
      .expect(201);
    expect(added.body).toMatchObject({
      kind: 'wikidata',
      every_seconds: 86_400,
      last_status: null,
    });
    const slow = await as(request(t.url).post('/admin/sources'))
      .send({ url: `${upstream.url}/fail/slow`, kind: 'feed' })
      .expect(201);
    expect((await list()).map((source) => source.id)).toEqual([added.body.id, slow.body.id]);

    // The slow source answers after 5 s; the request that started the run does not wait.
    const started = Date.now();
    await as(request(t.url).post(`/admin/sources/${slow.body.id}/run`)).expect(202);
    await as(request(t.url).post(`/admin/sources/${added.body.id}/run`)).expect(202);
    expect(Date.now() - started).toBeLessThan(2000);

    for (let waited = 0; (await list())[0].last_status === null; waited += 200) {
      if (waited > 30_000) throw new Error('the run did not finish');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const [hongKong] = await list();
    expect(hongKong).toMatchObject({ last_status: 'ok' });
    expect(hongKong.facts_added).toBeGreaterThan(0);

    const removed = await as(
      request(t.url).delete(`/admin/sources/${encodeURIComponent(added.body.url)}`),
    ).expect(200);
    expect(removed.body.id).toBe(added.body.id);
    expect((await list()).map((source) => source.id)).toEqual([slow.body.id]);
  });

  it('applies the command line’s rules, answering problems', async () => {
    const add = (body: object) => as(request(t.url).post('/admin/sources')).send(body);
    for (const url of [
      'ftp://example.org/feed',
      'not a url',
      '/etc/passwd',
      'file:///etc/passwd',
    ]) {
      const res = await add({ url, kind: 'feed' }).expect(422);
      expect(res.body.type).toBe('/problems/invalid-source');
    }
    expect(
      (await add({ url: '/no/such/dump.json.gz', kind: 'wikidata' }).expect(422)).body.detail,
    ).toBe('no such file: /no/such/dump.json.gz');
    await add({ url: 'https://example.org/feed', kind: 'tv' }).expect(422);
    await add({ url: 'https://example.org/feed', kind: 'feed', every: '5s' }).expect(422);
    await add({ url: 'https://example.org/feed', kind: 'feed' }).expect(201);
    expect(
      (await add({ url: 'https://example.org/feed', kind: 'feed' }).expect(409)).body.type,
    ).toBe('/problems/source-exists');
    for (const ref of ['999999', '0', 'https%3A%2F%2Fnowhere.example%2F', '99999999999999999999']) {
      expect((await as(request(t.url).delete(`/admin/sources/${ref}`)).expect(404)).body.type).toBe(
        '/problems/source-not-found',
      );
      await as(request(t.url).post(`/admin/sources/${ref}/run`)).expect(404);
    }
    await as(request(t.url).post('/admin/sources/presets')).send({ name: 'tv' }).expect(422);
  });
});
