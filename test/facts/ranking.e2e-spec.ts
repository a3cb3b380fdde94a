import { EMBEDDER, Embedder } from '../../src/embeddings/embedder';
import { replay } from '../../src/facts/evaluation';
import { FactSearch, FactsRepository } from '../../src/facts/facts.repository';
import { rankingFor } from '../../src/facts/ranking';
import { startApp, TestApp } from '../support/app';
import { CATANIA, fact, matches, OTHER } from '../support/corpus';

describe('the lexical score', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({
      facts: [
        fact('Which river flows through Vienna?', 'Danube', '2020-01-01'),
        fact('Which river flows through Budapest?', 'Danube', '2020-01-02'),
        fact('Which city hosts the Vienna State Opera?', 'Budapest is wrong, Vienna', '2020-01-03'),
        fact('Who wrote the opera Tosca?', 'Giacomo Puccini', '2020-01-04'),
      ],
    });
  });
  afterAll(() => t.close());

  it('is the IDF-weighted share of query terms found, answer-only terms counting less', async () => {
    const facts = t.app.get(FactsRepository);
    const embedder = t.app.get<Embedder>(EMBEDDER);
    const ranking = rankingFor(embedder.model);
    const [vector] = await embedder.embed(['river Vienna']);
    const rows = await facts.candidates(
      { query: 'river Vienna', vector, k: 10, timeline: true },
      ranking,
    );
    const lex = Object.fromEntries(rows.map((row) => [row.question, row.lex]));
    // N = 4 facts; "river" is in 2, "vienna" in 2 (one only as an answer word).
    const idf = (n: number) => Math.log(1 + (4 - n + 0.5) / (n + 0.5));
    const total = idf(2) + idf(2);
    expect(lex['Which river flows through Vienna?']).toBeCloseTo(1, 6);
    expect(lex['Which river flows through Budapest?']).toBeCloseTo(idf(2) / total, 6);
    expect(lex['Which city hosts the Vienna State Opera?']).toBeCloseTo(idf(2) / total, 6);
    expect(lex['Who wrote the opera Tosca?'] ?? 0).toBe(0);
    const byQuestion = Object.fromEntries(
      (
        await facts.candidates({ query: 'Budapest Tosca', vector, k: 10, timeline: true }, ranking)
      ).map((row) => [row.question, row.lex]),
    );
    // "budapest" is in 2 facts: in one question, and in one answer only (answerWeight).
    const both = idf(2) + idf(1);
    expect(byQuestion['Which city hosts the Vienna State Opera?']).toBeCloseTo(
      (ranking.answerWeight * idf(2)) / both,
      6,
    );
    expect(byQuestion['Who wrote the opera Tosca?']).toBeCloseTo(idf(1) / both, 6);
  });
});

describe('the calibration replay', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ facts: [...CATANIA, ...OTHER, ...matches(60)] });
  });
  afterAll(() => t.close());

  it('orders and cuts exactly as the SQL does, so the sweep tunes the real engine', async () => {
    const facts = t.app.get(FactsRepository);
    const embedder = t.app.get<Embedder>(EMBEDDER);
    const ranking = rankingFor(embedder.model);
    const queries = [
      'Who is the head coach of Calcio Catania?',
      'final score of league match 7',
      'How do I bake bread?',
      'World Cup host',
    ];
    for (const query of queries) {
      for (const maxDay of [undefined, '2020-06-30']) {
        const [vector] = await embedder.embed([query]);
        const search: FactSearch = { query, vector, k: 20, timeline: true, maxDay };
        const sql = (await facts.search(search, ranking)).map((row) => row.question);
        const replayed = replay(await facts.candidates(search, ranking), ranking).map(
          (row) => row.question,
        );
        expect(replayed).toEqual(sql);
      }
    }
  });
});
