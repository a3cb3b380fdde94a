import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { FactsRepository, IngestConsistencyError } from '../../src/facts/facts.repository';
import { IngestService } from '../../src/facts/ingest.service';
import { startApp, TestApp } from '../support/app';
import { fact } from '../support/corpus';

describe('ingesting facts', () => {
  let t: TestApp;
  let ingest: IngestService;
  let db: DataSource;
  beforeAll(async () => {
    t = await startApp();
    ingest = t.app.get(IngestService);
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  const rows = () =>
    db.query<{ question: string; answer: string; true_by: string | null; sources: string[] }[]>(
      `SELECT question, answer, to_char(true_by, 'YYYY-MM-DD') AS true_by, sources FROM facts ORDER BY id`,
    );

  it('merges the sources of a fact seen again instead of storing it twice', async () => {
    const first = fact(
      'Who won the 2022 Ballon d’Or?',
      'Karim Benzema',
      '2022-10-17',
      'https://a.example/',
    );
    const again = {
      ...first,
      question: "  who won the 2022 Ballon d'Or? ",
      sources: ['https://b.example/x', first.sources[0]],
    };
    expect(await ingest.ingestValues([first])).toMatchObject({ added: 1, merged: 0 });
    expect(await ingest.ingestValues([again, again])).toMatchObject({ added: 0, merged: 2 });
    const stored = (await rows()).filter((row) => row.answer === 'Karim Benzema');
    expect(stored).toHaveLength(1);
    expect(stored[0].sources).toEqual([first.sources[0], 'https://b.example/x']);
  });

  it('counts a repeat inside one batch as merged, so the summary adds up to the lines read', async () => {
    const before = (await rows()).length;
    const once = fact('Who won the 2018 Ballon d’Or?', 'Luka Modrić', '2018-12-03');
    const summary = await ingest.ingestValues([
      once,
      once,
      { ...once, sources: ['https://c.example/'] },
    ]);
    expect(summary).toMatchObject({ added: 1, merged: 2, rejected: [] });
    expect((await rows()).length).toBe(before + 1);
  });

  it('keeps the same question with another answer or day as a separate fact', async () => {
    const before = (await rows()).length;
    const base = fact(
      'Who is the prime minister of the United Kingdom?',
      'Liz Truss',
      '2022-09-06',
    );
    const summary = await ingest.ingestValues([
      base,
      { ...base, answer: 'Rishi Sunak', true_by: '2022-10-25' },
      { ...base, true_by: '2022-09-07' },
    ]);
    expect(summary).toMatchObject({ added: 3, merged: 0 });
    expect((await rows()).length).toBe(before + 3);
  });

  it('rejects malformed facts with every reason, and writes none of them', async () => {
    const before = (await rows()).length;
    const summary = await ingest.ingestValues([
      { question: 'No answer?', true_by: null, sources: ['https://x.example'] },
      { question: ' ', answer: 'a', true_by: '2023-02-30', sources: [] },
      { question: 'q?', answer: 'a', true_by: null, sources: ['ftp://x.example/file'] },
      'not an object',
    ]);
    expect(summary.added).toBe(0);
    expect(summary.rejected.map((r) => r.line)).toEqual([1, 2, 3, 4]);
    expect(summary.rejected[0].errors.join()).toMatch(/answer is required/);
    expect(summary.rejected[1].errors.join()).toMatch(/question must not be empty/);
    expect(summary.rejected[1].errors.join()).toMatch(/true_by must be a day/);
    expect(summary.rejected[1].errors.join()).toMatch(/sources/);
    expect(summary.rejected[2].errors.join()).toMatch(/http\(s\) URL/);
    expect((await rows()).length).toBe(before);
  });

  it('keeps a fact for its valid sources, dropping and counting the malformed ones', async () => {
    const before = (await rows()).length;
    const summary = await ingest.ingestValues([
      {
        ...fact('Who won the 2023 Ballon d’Or?', 'Lionel Messi', '2023-10-30'),
        sources: ['https://a.example/messi', 'not a url', 'ftp://x.example/file'],
      },
      // No valid source left: still refused, by its number, with the usual reason.
      { ...fact('Who won the 2024 Ballon d’Or?', 'Rodri', '2024-10-28'), sources: ['nope'] },
    ]);
    expect(summary).toMatchObject({ added: 1, merged: 0, droppedSources: 2 });
    expect(summary.rejected).toEqual([{ line: 2, errors: ['each source must be an http(s) URL'] }]);
    const stored = (await rows()).slice(before);
    expect(stored).toEqual([
      expect.objectContaining({ answer: 'Lionel Messi', sources: ['https://a.example/messi'] }),
    ]);
  });

  it('drops malformed source URLs the same way when ingesting a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'freshfacts-ingest-'));
    try {
      const path = join(dir, 'facts.jsonl');
      const line = (value: object) => JSON.stringify(value);
      const base = fact('Who won the 2023 Tour de Suisse?', 'Mattias Skjelmose', '2023-06-18');
      writeFileSync(
        path,
        [
          line({ ...base, sources: ['https://a.example/suisse', 'htp:/broken'] }),
          line({ ...base, answer: 'Nobody', sources: ['htp:/broken'] }),
        ].join('\n') + '\n',
      );
      const summary = await ingest.ingestFile(path);
      expect(summary).toMatchObject({ added: 1, merged: 0, droppedSources: 1 });
      expect(summary.rejected).toEqual([
        { line: 2, errors: ['each source must be an http(s) URL'] },
      ]);
      const [stored] = (await rows()).filter((row) => row.answer === 'Mattias Skjelmose');
      expect(stored.sources).toEqual(['https://a.example/suisse']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a whole batch, writing none of it, when facts taken as stored are not there', async () => {
    // Fault injection, not a stand-in: the existing-keys check is made to answer that a
    // new fact is stored, the inconsistency that once lost a batch of a 1M ingest.
    const facts = t.app.get(FactsRepository);
    const before = (await rows()).length;
    const batch = [
      fact('Who won the 2023 Tour de France?', 'Jonas Vingegaard', '2023-07-23'),
      fact('Who won the 2023 Giro d’Italia?', 'Primož Roglič', '2023-05-28'),
    ];
    const lying = jest.spyOn(facts, 'existingKeys').mockImplementation((keys) => {
      lying.mockRestore();
      return Promise.resolve(new Set([keys[0]]));
    });
    const refused = ingest.ingestValues(batch);
    await expect(refused).rejects.toThrow(IngestConsistencyError);
    await expect(refused).rejects.toThrow(/^1 of 1 facts taken as already stored/);
    expect((await rows()).length).toBe(before);
    // Nothing half-written: the same batch goes in whole once the check tells the truth.
    expect(await ingest.ingestValues(batch)).toMatchObject({ added: 2, merged: 0 });
  });

  it('refuses a whole batch when the store takes fewer new facts than were sent', async () => {
    const before = (await rows()).length;
    const batch = [
      fact('Who won the 2024 Tour de France?', 'Tadej Pogačar', '2024-07-21'),
      fact('Who won the 2024 Vuelta a España?', 'Primož Roglič', '2024-09-08'),
    ];
    // A real trigger that swallows one row, standing in for a reply that lost facts.
    await db.query(`CREATE FUNCTION swallow() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN IF NEW.question LIKE '%Vuelta%' THEN RETURN NULL; END IF; RETURN NEW; END $$`);
    await db.query(
      `CREATE TRIGGER swallow BEFORE INSERT ON facts FOR EACH ROW EXECUTE FUNCTION swallow()`,
    );
    try {
      const refused = ingest.ingestValues(batch);
      await expect(refused).rejects.toThrow(IngestConsistencyError);
      await expect(refused).rejects.toThrow(/^1 of 2 new facts were not stored/);
      expect((await rows()).length).toBe(before);
    } finally {
      await db.query(`DROP TRIGGER swallow ON facts`);
      await db.query(`DROP FUNCTION swallow()`);
    }
    expect(await ingest.ingestValues(batch)).toMatchObject({ added: 2, merged: 0 });
  });

  it('makes new facts searchable with up-to-date term statistics', async () => {
    await ingest.ingestValues([
      fact('Which rover found organic molecules in Jezero crater?', 'Perseverance', '2023-07-12'),
    ]);
    const [stats] = await db.query<{ facts: string }[]>(`SELECT facts FROM corpus_stats`);
    expect(Number(stats.facts)).toBe((await rows()).length);
    const [jezero] = await db.query<{ ndoc: number }[]>(
      `SELECT ndoc FROM lexeme_stats WHERE lexeme = 'jezero'`,
    );
    expect(jezero.ndoc).toBe(1);
  });
});
