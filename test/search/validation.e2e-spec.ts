import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { CATANIA } from '../support/corpus';

/** Every malformed body gets 422 (or 413) with an RFC 9457 problem naming the field. */
describe('request validation on both endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ facts: CATANIA });
  });
  afterAll(() => t.close());

  const post = (path: string, body: string | object) =>
    request(t.url)
      .post(path)
      .set('Authorization', `Bearer ${t.key}`)
      .set('Content-Type', 'application/json')
      .send(typeof body === 'string' ? body : JSON.stringify(body));

  const cases: [string, string | object, string][] = [
    ['an empty query', { query: '' }, 'query'],
    ['a whitespace query', { query: '  \n\t' }, 'query'],
    ['a missing query', { k: 10 }, 'query'],
    ['a query that is not a string', { query: 42 }, 'query'],
    ['a query over 2,000 characters', { query: 'x'.repeat(2001) }, 'query'],
    ['k as a string', { query: 'q', k: '5' }, 'k'],
    ['a fractional k', { query: 'q', k: 10.5 }, 'k'],
    ['timeline as a string', { query: 'q', timeline: 'yes' }, 'timeline'],
    ['an empty model_id', { query: 'q', model_id: '' }, 'model_id'],
    ['a body that is not JSON', '{"query": ', 'body'],
    ['a JSON array', '[{"query": "q"}]', 'body'],
    ['a JSON string', '"q"', 'body'],
  ];

  for (const path of ['/v1/search', '/api/research']) {
    for (const [what, body, field] of cases) {
      it(`${path} answers 422 for ${what}`, async () => {
        const res = await post(path, body).expect(422);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.body).toMatchObject({
          type: '/problems/invalid-request',
          status: 422,
          title: expect.any(String),
        });
        expect(
          res.body.errors.some(
            (e: { loc: string[] }) =>
              e.loc.join('.') === (field === 'body' ? 'body' : `body.${field}`),
          ),
        ).toBe(true);
        expect(res.body.detail).toContain(field === 'body' ? 'body' : field);
      });
    }
  }

  const dateCases: [string, object, string][] = [
    ['an unparseable true_by_min', { true_by_min: 'yesterday' }, 'true_by_min'],
    ['an impossible day', { true_by_max: '2023-02-30' }, 'true_by_max'],
    [
      'true_by_max equal to true_by_min',
      { true_by_min: '2023-01-01', true_by_max: '2023-01-01T00:00:00Z' },
      'true_by_max',
    ],
    [
      'true_by_max before true_by_min',
      { true_by_min: '2023-01-02', true_by_max: '2023-01-01' },
      'true_by_max',
    ],
    ['a date that is not a string', { true_by_min: 20230101 }, 'true_by_min'],
  ];
  for (const [what, bounds, field] of dateCases) {
    it(`/v1/search answers 422 for ${what}`, async () => {
      const res = await post('/v1/search', { query: 'Catania coach', ...bounds }).expect(422);
      expect(res.body.errors.map((e: { loc: string[] }) => e.loc.join('.'))).toContain(
        `body.${field}`,
      );
    });
  }

  it('accepts dates with an offset, compared by their UTC day', async () => {
    // 2008-01-01T01:00+02:00 is 2007-12-31 in UTC: Zenga (2008-01-01) falls outside.
    const local = await post('/v1/search', {
      query: 'Catania coach',
      true_by_min: '2006-01-01',
      true_by_max: '2008-01-01T01:00:00+02:00',
    }).expect(200);
    expect(local.body.results.map((r: { answer: string }) => r.answer)).toEqual(['Silvio Baldini']);
    const utc = await post('/v1/search', {
      query: 'Catania coach',
      true_by_min: '2006-01-01',
      true_by_max: '2008-01-01T01:00:00Z',
    }).expect(200);
    expect(utc.body.results.map((r: { answer: string }) => r.answer)).toEqual([
      'Walter Zenga',
      'Silvio Baldini',
    ]);
  });

  it('lists every bad field at once', async () => {
    const res = await post('/v1/search', { query: '', k: 'many', timeline: 1 }).expect(422);
    const fields = res.body.errors.map((e: { loc: string[] }) => e.loc[1]);
    expect(fields).toEqual(expect.arrayContaining(['query', 'k', 'timeline']));
  });

  it('refuses bodies over 64 KiB with 413', async () => {
    const res = await post('/v1/search', { query: 'q', padding: 'x'.repeat(70 * 1024) }).expect(
      413,
    );
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 413, type: '/problems/payload-too-large' });
  });

  it('parses a JSON body sent without a JSON content type', async () => {
    const res = await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${t.key}`)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('{"query":"Catania coach"}')
      .expect(200);
    expect(res.body.results.length).toBeGreaterThan(0);
  });

  it('answers unknown routes with a problem body', async () => {
    const res = await request(t.url).get('/v1/nothing').expect(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({
      status: 404,
      title: expect.any(String),
      detail: expect.any(String),
    });
  });
});
