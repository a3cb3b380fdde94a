import { INestApplicationContext } from '@nestjs/common';
import { EMBEDDER, Embedder } from '../embeddings/embedder';
import { FactDto } from './fact.dto';
import { namesPredecessor, QueryForm, queryForm } from './query-form';
import { Ranking } from './ranking';
import { relativeThreshold, siblingWording, subjectShare } from './ranking-sql';
import { Candidate, RankingRepository } from './ranking.repository';

/** One line of a queries file (corpus/queries-dev.jsonl). */
export interface EvalQuery {
  query: string;
  expect_answer_contains: string;
  expect_first_answer_contains?: string;
  true_by_max?: string;
  note?: string;
}

export interface QueryOutcome {
  facts: Pick<FactDto, 'answer' | 'true_by'>[];
}

export interface Metrics {
  queries: number;
  recallAt1: number;
  recallAt5: number;
  recallAt10: number;
  mrr: number;
  /** Share of queries with an expected first answer whose first fact holds it; null if none. */
  firstCorrect: number | null;
  /** Facts returned later than the query's true_by_max (must be 0). */
  outsideWindow: number;
}

/**
 * The k of each eval request: 10, as the independent comparisons of the retrieval
 * issue asked (one request per question, k 10, newest first), so that recall@10 is
 * "the answer is in the list the caller got". `eval --k 20` measures the default k.
 */
export const EVAL_K = 10;

/** Metrics over all queries and per kind (the `note` prefix before the colon). */
export function scoreQueries(
  queries: EvalQuery[],
  outcomes: QueryOutcome[],
): Record<string, Metrics> {
  const groups = new Map<string, number[]>([['all', []]]);
  queries.forEach((query, i) => {
    const kind = kindOf(query);
    groups.get('all')!.push(i);
    groups.set(kind, [...(groups.get(kind) ?? []), i]);
  });
  return Object.fromEntries(
    [...groups].map(([kind, ids]) => [
      kind,
      metrics(ids.map((i) => [queries[i], outcomes[i]] as const)),
    ]),
  );
}

function kindOf(query: EvalQuery): string {
  const kind = (query.note ?? 'queries').split(':')[0];
  if (kind !== 'timeqa-time-sensitive') return kind;
  return `${kind} ${query.true_by_max ? 'windowed' : 'default'}`;
}

function metrics(pairs: (readonly [EvalQuery, QueryOutcome])[]): Metrics {
  const ranks = pairs.map(([query, outcome]) => {
    const expected = query.expect_answer_contains.toLowerCase();
    return outcome.facts.findIndex((fact) => fact.answer.toLowerCase().includes(expected));
  });
  const within = (n: number) => ranks.filter((rank) => rank >= 0 && rank < n).length / pairs.length;
  const firsts = pairs.filter(([query]) => query.expect_first_answer_contains);
  const firstHits = firsts.filter(([query, outcome]) =>
    (outcome.facts[0]?.answer ?? '')
      .toLowerCase()
      .includes(query.expect_first_answer_contains!.toLowerCase()),
  );
  const outside = pairs.reduce(
    (sum, [query, outcome]) =>
      sum +
      (query.true_by_max
        ? outcome.facts.filter((fact) => fact.true_by === null || fact.true_by > query.true_by_max!)
            .length
        : 0),
    0,
  );
  return {
    queries: pairs.length,
    recallAt1: within(1),
    recallAt5: within(5),
    recallAt10: within(10),
    mrr: ranks.reduce((sum, rank) => sum + (rank >= 0 ? 1 / (rank + 1) : 0), 0) / pairs.length,
    firstCorrect: firsts.length ? firstHits.length / firsts.length : null,
    outsideWindow: outside,
  };
}

type Tuned = Pick<
  Ranking,
  | 'answerWeight'
  | 'semanticWeight'
  | 'closeThreshold'
  | 'relativeThreshold'
  | 'keywordRelativeThreshold'
  | 'lexicalShare'
>;

export interface SweepResult {
  ranking: Tuned;
  /** Objective on all queries with the best parameters. */
  score: number;
  /** Two-fold estimate: tuned on one half of the queries, scored on the other. */
  heldOut: { recallAt10: number; firstCorrect: number };
}

/**
 * Grid search over the answer weight, the fusion weight, the three thresholds and the
 * lexical share (the rarity power is fixed: it changes the candidates themselves).
 * Candidates (cosine and lexical scores apart) are fetched once per answer weight;
 * the cut and the timeline order are replayed in memory exactly as the SQL does.
 */
export async function sweep(
  context: INestApplicationContext,
  queries: EvalQuery[],
  base: Ranking,
): Promise<SweepResult> {
  const facts = context.get(RankingRepository);
  const [vectors] = [await context.get<Embedder>(EMBEDDER).embed(queries.map((q) => q.query))];
  const trials: { ranking: Tuned; hits: Hit[] }[] = [];
  const forms = queries.map((query) => queryForm(query.query));
  for (const answerWeight of [0.1, 0.2, 0.3]) {
    const pools: Candidate[][] = [];
    for (const [i, query] of queries.entries()) {
      const search = {
        query: query.query,
        vector: vectors[i],
        k: EVAL_K,
        timeline: true,
        maxDay: query.true_by_max,
      };
      pools.push(await facts.candidates(search, { ...base, answerWeight }));
    }
    for (const semanticWeight of range(0.2, 0.7, 0.1)) {
      for (const closeThreshold of range(0.1, 0.4, 0.05)) {
        for (const relativeThreshold of range(0.5, 0.9, 0.05)) {
          for (const keywordRelativeThreshold of range(0.2, 0.6, 0.1)) {
            for (const lexicalShare of range(0, 0.4, 0.2)) {
              const ranking = {
                answerWeight,
                semanticWeight,
                closeThreshold,
                relativeThreshold,
                keywordRelativeThreshold,
                lexicalShare,
              };
              trials.push({
                ranking,
                hits: pools.map((pool, i) =>
                  hitOf(queries[i], replay(pool, { ...base, ...ranking }, forms[i])),
                ),
              });
            }
          }
        }
      }
    }
  }
  const all = queries.map((_, i) => i);
  const best = bestOn(trials, all);
  const folds = [all.filter((i) => i % 2 === 0), all.filter((i) => i % 2 === 1)];
  const heldOut = folds.map((train, f) => summarise(bestOn(trials, train).hits, folds[1 - f]));
  return {
    ranking: best.ranking,
    score: objectiveOn(best.hits, all),
    heldOut: {
      recallAt10: (heldOut[0].recallAt10 + heldOut[1].recallAt10) / 2,
      firstCorrect: (heldOut[0].firstCorrect + heldOut[1].firstCorrect) / 2,
    },
  };
}

/** Where a query's answer landed: its rank (-1: missing) and whether the first was right. */
interface Hit {
  rank: number;
  first: boolean | null;
}

function hitOf(query: EvalQuery, facts: Candidate[]): Hit {
  const expected = query.expect_answer_contains.toLowerCase();
  const first = query.expect_first_answer_contains?.toLowerCase();
  return {
    rank: facts.findIndex((fact) => fact.answer.toLowerCase().includes(expected)),
    first: first === undefined ? null : (facts[0]?.answer ?? '').toLowerCase().includes(first),
  };
}

function summarise(hits: Hit[], ids: number[]) {
  const firsts = ids.filter((i) => hits[i].first !== null);
  return {
    recallAt10: ids.filter((i) => hits[i].rank >= 0 && hits[i].rank < 10).length / ids.length,
    firstCorrect: firsts.filter((i) => hits[i].first).length / (firsts.length || 1),
  };
}

/** What the sweep optimises: finding the answer, and putting the current one first. */
function objectiveOn(hits: Hit[], ids: number[]): number {
  const { recallAt10, firstCorrect } = summarise(hits, ids);
  return recallAt10 + firstCorrect;
}

function bestOn<T extends { hits: Hit[] }>(trials: T[], ids: number[]): T {
  return trials.reduce((best, trial) =>
    objectiveOn(trial.hits, ids) > objectiveOn(best.hits, ids) ? trial : best,
  );
}

/** A candidate with its fused score, as the CTE `fused` holds it. */
export interface Scored {
  c: Candidate;
  score: number;
}

type Cut = Pick<
  Ranking,
  | 'closeThreshold'
  | 'relativeThreshold'
  | 'keywordRelativeThreshold'
  | 'longQuestionRelativeThreshold'
  | 'lexicalShare'
  | 'subjectShare'
  | 'shortQuestionTerms'
  | 'siblingNames'
  | 'siblingWording'
>;

/**
 * The fused score, cut and timeline order of RankingRepository.search, in memory: the
 * sweep tries thousands of calibrations on candidates fetched once. It mirrors the
 * statement's stages after `scoring` (ranking-sql.ts), one function of the same name
 * each; test/facts/ranking.e2e-spec.ts checks that both answer alike.
 */
export function replay(
  pool: Candidate[],
  ranking: Pick<Ranking, 'semanticWeight'> & Cut,
  form: QueryForm,
  k = EVAL_K,
): Candidate[] {
  return order(closeMatches(fuse(pool, ranking), ranking, form, k), form, k);
}

/** `fuse` of ranking-sql.ts: the semantic weight's share of `cos` and the rest of `lex`. */
export function fuse(pool: Candidate[], ranking: Pick<Ranking, 'semanticWeight'>): Scored[] {
  const w = ranking.semanticWeight;
  return pool.map((c) => ({ c, score: w * c.cos + (1 - w) * c.lex }));
}

/**
 * `closeMatches` of ranking-sql.ts: the k best over the bars (with the subject test for
 * a short question) and the best match's siblings (the subject's by their names, not held
 * to the subject test), or when none is, the k nearest.
 */
export function closeMatches(scored: Scored[], ranking: Cut, form: QueryForm, k: number): Scored[] {
  if (!scored.length) return [];
  const short = scored[0].c.queryTerms <= ranking.shortQuestionTerms;
  const bar = Math.max(
    ranking.closeThreshold,
    Math.max(...scored.map((s) => s.score)) * relativeThreshold(ranking, form, !short),
  );
  const lexBar = ranking.lexicalShare * Math.max(...scored.map((s) => s.c.lex));
  const anchor = [...scored].sort((a, b) => b.c.named - a.c.named || byRank(a, b))[0].c;
  const best = anchor.held;
  const subject = short ? subjectShare(ranking, form) : 0;
  const bestWeight = sum(Object.values(best));
  const agrees = (s: Scored) =>
    sum(Object.keys(s.c.held).map((term) => best[term] ?? 0)) >= subject * bestWeight - 1e-9;
  const template = Object.entries(anchor.wording);
  const siblingBar =
    short && anchor.named > 0 ? siblingWording(ranking, form) * sum(template.map(([, w]) => w)) : 0;
  const relation =
    short && siblingWording(ranking, form) > 0 && anchor.named > 0
      ? Object.keys(anchor.held).filter((term) => !anchor.namedTerms.includes(term))
      : [];
  const sibling = (s: Scored) =>
    (siblingBar > 0 || relation.length > 0) &&
    s.score >= ranking.closeThreshold &&
    s.c.named >= ranking.siblingNames * anchor.named &&
    ((relation.length > 0 && relation.every((term) => term in s.c.held)) ||
      (siblingBar > 0 &&
        sum(template.filter(([word]) => word in s.c.wording).map(([, w]) => w)) >=
          siblingBar - 1e-9));
  const close = scored.filter(
    (s) => ((s.score >= bar && agrees(s)) || sibling(s)) && s.c.lex >= lexBar,
  );
  return (close.length ? close : scored).sort(byScore).slice(0, k);
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/**
 * `order` of ranking-sql.ts on a timeline (the order the sweep calibrates for): newest
 * first, undated last, then facts of the query's tense, then by score. Plain
 * comparisons, no locale collation.
 */
export function order(picked: Scored[], form: QueryForm, k: number): Candidate[] {
  const tense = (s: Scored) => (namesPredecessor(s.c.question) === form.previous ? 0 : 1);
  return picked
    .sort((a, b) =>
      day(a) < day(b) ? 1 : day(a) > day(b) ? -1 : tense(a) - tense(b) || byScore(a, b),
    )
    .slice(0, k)
    .map((s) => s.c);
}

const day = (s: Scored) => s.c.true_by ?? '';

/** Higher score first; of equal scores the newer, undated last: as the SQL orders them. */
const byScore = (a: Scored, b: Scored) =>
  b.score - a.score || (day(a) < day(b) ? 1 : day(a) > day(b) ? -1 : 0);

/** `byScore`, then the lower id: the CTE `best`'s order, one fact however many tie. */
const byRank = (a: Scored, b: Scored) =>
  byScore(a, b) || (BigInt(a.c.id) < BigInt(b.c.id) ? -1 : BigInt(a.c.id) > BigInt(b.c.id) ? 1 : 0);

function range(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  for (let x = from; x <= to + 1e-9; x += step) out.push(Math.round(x * 100) / 100);
  return out;
}
