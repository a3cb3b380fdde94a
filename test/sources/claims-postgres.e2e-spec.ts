import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { SOURCES_DDL } from '../../migrations/1764115200000-Sources';
import { SPARQL_SOURCES_DDL } from '../../migrations/1764633600000-SparqlSources';
import { SourcesRepository } from '../../src/sources/sources.repository';
import { postgresSchema } from '../support/postgres';

// Several workers claiming due sources at once: on the machine's PostgreSQL 15 the
// claims really run in parallel (PGlite serialises them). The sources tables need
// no pgvector, so they are created here from the migration's DDL.
describe('the sources claim on PostgreSQL 15 with 16 connections', () => {
  let db: DataSource;
  let drop: () => Promise<void>;
  let sources: SourcesRepository;

  beforeAll(async () => {
    ({ db, drop } = await postgresSchema('sources', [...SOURCES_DDL, ...SPARQL_SOURCES_DDL]));
    sources = new SourcesRepository(db);
  });
  afterAll(() => drop());

  it('gives each due source to exactly one of 12 racing workers', async () => {
    for (let i = 0; i < 60; i++) await sources.add(`https://example.org/feed/${i}`, 'feed', 3600);
    const claimed = await Promise.all(
      Array.from({ length: 12 }, async (_, w) => {
        const mine: string[] = [];
        for (;;) {
          const source = await sources.claim(`worker-${w}`, 600);
          if (!source) return mine;
          mine.push(source.id);
          await sources.finish(source, `worker-${w}`, { status: 'ok' });
        }
      }),
    );
    const all = claimed.flat();
    expect(all).toHaveLength(60);
    expect(new Set(all).size).toBe(60);
    expect(claimed.filter((mine) => mine.length > 0).length).toBeGreaterThan(1);
    // Finished sources are not due again before their interval.
    expect(await sources.claim('late', 600)).toBeUndefined();
  });

  it("takes up a crashed worker's source once its lease runs out", async () => {
    const source = await sources.add('https://example.org/crashy', 'page', 3600);
    const taken = await sources.claim('crashed', 1);
    expect(taken?.id).toBe(source.id);
    expect(await sources.claim('other', 600)).toBeUndefined();
    await sleep(1100);
    expect((await sources.claim('other', 600))?.id).toBe(source.id);
    // The crashed worker coming back cannot overwrite the new holder's lease.
    await sources.finish(taken!, 'crashed', { status: 'failed', error: 'late' });
    const [row] = await db.query<{ leased_by: string; last_error: string | null }[]>(
      `SELECT leased_by, last_error FROM sources WHERE id = $1`,
      [source.id],
    );
    expect(row).toEqual({ leased_by: 'other', last_error: null });
  });
});
