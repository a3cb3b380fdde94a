import { join } from 'node:path';
import { CorpusGrower, evalNames, readJsonLines } from '../../tools/bench/corpus';
import { EvalQuery } from '../../src/facts/evaluation';
import { FactDto } from '../../src/facts/fact.dto';

const ROOT = join(__dirname, '..', '..');
const base = readJsonLines<FactDto>(join(ROOT, 'corpus', 'facts-dev.jsonl'));
const queries = readJsonLines<EvalQuery>(join(ROOT, 'corpus', 'queries-dev.jsonl'));
const GROWN = 3_000;

/** `text` holds `name` with no letter or digit right before or after it. */
function holds(text: string, name: string): boolean {
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const before = text.slice(0, at);
    const after = text.slice(at + name.length);
    if (!/[\p{L}\p{N}]$/u.test(before) && !/^[\p{L}\p{N}]/u.test(after)) return true;
  }
  return false;
}

describe("the bench's grown corpus", () => {
  const grower = new CorpusGrower(base, 1, queries);
  const facts = [...grower.facts(base.length + GROWN)];
  const grown = facts.slice(base.length);

  it('starts with the shipped facts, so the dev queries have their answers', () => {
    expect(facts.slice(0, base.length)).toEqual(base);
    expect(grown).toHaveLength(GROWN);
  });

  it('grows no fact that holds an expected answer of the dev queries', () => {
    const expected = queries.flatMap((q) =>
      [q.expect_answer_contains, q.expect_first_answer_contains ?? '']
        .filter((a) => a.trim())
        .map((a) => a.toLowerCase()),
    );
    expect(expected.length).toBeGreaterThanOrEqual(queries.length);
    const bad = grown.filter((fact) =>
      expected.some(
        (answer) =>
          fact.question.toLowerCase().includes(answer) ||
          fact.answer.toLowerCase().includes(answer),
      ),
    );
    expect(bad).toEqual([]);
  });

  it('grows no fact that names an eval name: a query subject, or a name of the facts answering them', () => {
    const names = evalNames(queries, base);
    // The eval names are what the queries are about: each query's subject is among them.
    expect(names.names).toContain('Helsingin Jalkapalloklubi');
    expect(names.names).toContain('Amber Diceless Roleplaying Game');
    expect(names.words.has('Koskela')).toBe(true);
    const all = [...names.names, ...names.words];
    const bad: string[] = [];
    for (const fact of grown) {
      for (const name of all) {
        if (holds(fact.question, name) || holds(fact.answer, name))
          bad.push(`${name}: ${fact.question}`);
      }
    }
    expect(bad).toEqual([]);
    // The shipped facts do name them (the check finds what it looks for).
    expect(base.some((fact) => holds(fact.question, 'Helsingin Jalkapalloklubi'))).toBe(true);
  });

  it('never asks the question of a shipped fact that answers a dev query', () => {
    const expected = queries.map((q) => q.expect_answer_contains.toLowerCase());
    const answering = new Set(
      base
        .filter((fact) => expected.some((answer) => fact.answer.toLowerCase().includes(answer)))
        .map((fact) => fact.question),
    );
    expect(answering.size).toBeGreaterThan(500);
    expect(grown.filter((fact) => answering.has(fact.question))).toEqual([]);
  });

  it('swaps in names only from a pool disjoint from the eval names', () => {
    const names = evalNames(queries, base);
    expect(grower.pool.length).toBeGreaterThan(1_000);
    for (const name of grower.pool) {
      expect(names.names.filter((evalName) => holds(name, evalName))).toEqual([]);
      expect([...names.words].filter((word) => holds(name, word))).toEqual([]);
    }
  });

  it('keeps the variants realistic: new questions, days within the corpus, sources marked', () => {
    const shipped = new Set(base.map((fact) => fact.question));
    expect(grown.filter((fact) => shipped.has(fact.question)).length).toBeLessThan(GROWN / 10);
    for (const fact of grown) {
      if (fact.true_by !== null) expect(fact.true_by <= '2026-11-01').toBe(true);
      expect(fact.sources.every((url) => /#v\d+$/.test(url))).toBe(true);
    }
  });

  it('is deterministic: the same seed grows the same facts, another seed others', () => {
    const again = [...new CorpusGrower(base, 1, queries).facts(base.length + GROWN)];
    expect(again.slice(base.length)).toEqual(grown);
    const other = [...new CorpusGrower(base, 2, queries).facts(base.length + 500)];
    expect(other.slice(base.length)).not.toEqual(grown.slice(0, 500));
  });
});
