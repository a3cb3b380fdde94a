import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { FactDto } from '../../src/facts/fact.dto';
import { EvalQuery } from '../../src/facts/evaluation';

/**
 * The names a grown fact must never contain, so that no distractor can be a right
 * answer to an eval question or be about its subject: everything in the dev queries
 * (their questions and expected answers) and in the shipped facts that answer them
 * (every fact whose answer holds an expected answer string).
 */
export interface EvalNames {
  /** Expected answer strings of the queries (both kinds), lower-cased. */
  answers: string[];
  /** Whole names (runs of capitalised words) of those texts, e.g. "Helsingin Jalkapalloklubi". */
  names: string[];
  /**
   * Their words that are names: capitalised, two letters or more, and never written in
   * lower case anywhere in the corpus ("Koskela", "Mississippi"; not "The", "Which").
   */
  words: Set<string>;
  /** The shipped facts whose answer holds an expected answer string. */
  answering: Set<FactDto>;
}

/** Lower-cased words written in lower case somewhere in `facts` ("the", "march"). */
export function vocabulary(facts: FactDto[]): Set<string> {
  const words = new Set<string>();
  for (const fact of facts) {
    for (const text of [fact.question, fact.answer]) {
      for (const [word] of text.matchAll(WORD)) if (/^\p{Ll}/u.test(word)) words.add(word);
    }
  }
  return words;
}

/** The eval names of `queries` over the shipped facts `base` (see `EvalNames`). */
export function evalNames(
  queries: EvalQuery[],
  base: FactDto[],
  words: Set<string> = vocabulary(base),
): EvalNames {
  const answers = [
    ...new Set(
      queries.flatMap((q) =>
        [q.expect_answer_contains, q.expect_first_answer_contains ?? '']
          .map((a) => a.toLowerCase())
          .filter((a) => a.trim()),
      ),
    ),
  ];
  const texts: string[] = queries.flatMap((q) => [
    q.query,
    q.expect_answer_contains,
    q.expect_first_answer_contains ?? '',
  ]);
  const answering = new Set<FactDto>();
  for (const fact of base) {
    const answer = fact.answer.toLowerCase();
    if (!answers.some((a) => answer.includes(a))) continue;
    answering.add(fact);
    texts.push(fact.question, fact.answer);
  }
  const names = new Set<string>();
  const nameWords = new Set<string>();
  for (const text of texts) {
    for (const [word] of text.matchAll(WORD)) if (isNameWord(word, words)) nameWords.add(word);
    for (const [name] of text.matchAll(NAME)) {
      // A lone sentence-initial word ("The", "Which") is no name.
      if (/\s/.test(name) || hasNameWord(name, words)) names.add(name);
    }
  }
  return { answers, names: [...names].sort(), words: nameWords, answering };
}

/**
 * Grows a benchmark corpus of any size from the shipped facts: every shipped fact
 * once, then variants of them in which names, numbers and years are swapped and the
 * day moved near the original's. The text stays real questions about real kinds of
 * things, with enough distinct entities that a million lines are not a repetition of
 * a few thousand strings.
 *
 * The variants are distractors, never answers: the names swapped in come from a pool
 * of the corpus's names disjoint from the eval names (`evalNames`), the facts answering
 * the queries are no templates (a question without names would come out unchanged),
 * and a template is only used if what it keeps (the text around its names and numbers) holds no eval name or
 * expected answer, and every variant is checked again before it is kept (a number
 * drawn at random can spell an expected answer). So a grown fact never contains an
 * expected answer string of the dev queries nor the subject of one of them, and the
 * dev queries' recall measures how well the engine finds the shipped answer among
 * look-alikes, not which of several right answers it happened to return.
 */
export class CorpusGrower {
  /** The names swapped in: the corpus's names that are no eval name. */
  readonly pool: string[];
  readonly exclude: EvalNames;
  private readonly vocabulary: Set<string>;
  /** Eval names without a name word (e.g. "United States"): matched as substrings. */
  private readonly wordless: string[];
  private readonly templates: FactDto[];
  private readonly answers: string[];
  private readonly random: () => number;

  constructor(
    private readonly base: FactDto[],
    seed: number,
    queries: EvalQuery[],
  ) {
    this.random = mulberry32(seed);
    this.vocabulary = vocabulary(base);
    this.exclude = evalNames(queries, base, this.vocabulary);
    this.wordless = this.exclude.names.filter((name) => !hasNameWord(name, this.vocabulary));
    const names = new Set<string>();
    for (const fact of base) {
      for (const name of namesIn(fact.question)) names.add(name);
      for (const name of namesIn(fact.answer)) names.add(name);
    }
    this.pool = [...names]
      .filter((name) => /\s/.test(name) || hasNameWord(name, this.vocabulary))
      .filter((name) => this.clean(name) && !this.wordless.some((n) => name.includes(n)))
      .sort();
    // Not the facts answering the queries: a variant of one whose question has no name
    // (most news-quiz questions) would ask the very same question with another answer.
    this.templates = base.filter(
      (fact) =>
        !this.exclude.answering.has(fact) &&
        this.clean(this.skeleton(fact.question)) &&
        this.clean(this.skeleton(fact.answer)),
    );
    this.answers = base.map((fact) => fact.answer).filter((answer) => this.clean(answer));
    if (!this.pool.length || !this.templates.length || !this.answers.length)
      throw new Error('no names, templates or answers left outside the eval names');
  }

  /** `count` facts: the base facts first, then distinct variants. */
  *facts(count: number): Generator<FactDto> {
    const seen = new Set<string>();
    let made = 0;
    for (const fact of this.base) {
      if (made === count) return;
      seen.add(identity(fact));
      made++;
      yield fact;
    }
    for (let tries = 0; made < count; tries++) {
      if (tries > count * 20) throw new Error(`could not grow ${count} distinct facts`);
      const fact = this.variant(
        this.templates[Math.floor(this.random() * this.templates.length)],
        made,
      );
      if (!this.clean(fact.question) || !this.clean(fact.answer)) continue;
      const id = identity(fact);
      if (seen.has(id)) continue;
      // Only recent identities matter for collisions at scale; bound the memory.
      if (seen.size > 2_000_000) seen.clear();
      seen.add(id);
      made++;
      yield fact;
    }
  }

  /**
   * True when `text` holds no expected answer (any case), no eval name word and no
   * eval name without one.
   */
  clean(text: string): boolean {
    const lower = text.toLowerCase();
    for (const answer of this.exclude.answers) if (lower.includes(answer)) return false;
    for (const [word] of text.matchAll(WORD)) if (this.exclude.words.has(word)) return false;
    for (const name of this.wordless) if (text.includes(name)) return false;
    return true;
  }

  /** What a variant keeps of `text`: everything but the names and numbers it swaps. */
  private skeleton(text: string): string {
    return text
      .replace(NAME, (name, offset: number) => (this.swapsAt(name, offset) ? '\u0000' : name))
      .replace(/\b\d[\d,.]*\b/g, '\u0000');
  }

  /**
   * Whether a variant swaps this name: always, except a sentence's first word that is
   * capitalised only as such ("Which", "The").
   */
  private swapsAt(name: string, offset: number): boolean {
    return offset > 0 || hasNameWord(name, this.vocabulary);
  }

  private variant(template: FactDto, n: number): FactDto {
    const swaps = new Map<string, string>();
    // Years in the text move with the fact's day, so "which 2025 film" stays plausible.
    const shiftDays = Math.round((this.random() * 2 - 1) * 3 * 365);
    const years = Math.round(shiftDays / 365.25);
    const swap = (text: string) =>
      text
        .replace(NAME, (name, offset: number) => {
          if (!this.swapsAt(name, offset)) return name;
          if (!swaps.has(name))
            swaps.set(name, this.pool[Math.floor(this.random() * this.pool.length)]);
          return swaps.get(name)!;
        })
        .replace(/\b\d[\d,.]*\b/g, (number) =>
          YEAR.test(number) ? String(Math.min(2026, Number(number) + years)) : this.vary(number),
        );
    const question = swap(template.question);
    let answer = swap(template.answer);
    // An answer without names or numbers: another fact's, so the pair is still new.
    if (answer === template.answer)
      answer = this.answers[Math.floor(this.random() * this.answers.length)];
    return {
      question,
      answer,
      true_by: this.day(template.true_by, shiftDays),
      sources: template.sources.map((url) => `${url.split('#')[0]}#v${n}`),
    };
  }

  /** A number of about the same size. */
  private vary(number: string): string {
    const digits = number.replace(/\D/g, '').length || 1;
    const value = Math.floor(this.random() * 10 ** digits);
    return value.toLocaleString('en-US');
  }

  /** `day` moved by `shift` days, never past the corpus's present. */
  private day(day: string | null, shift: number): string | null {
    if (day === null) return null;
    const date = Date.parse(`${day}T00:00:00Z`) + shift * 86_400_000;
    const latest = Date.parse('2026-11-01T00:00:00Z');
    return new Date(Math.min(date, latest)).toISOString().slice(0, 10);
  }
}

/** Writes `count` grown facts as JSON Lines to `path`. */
export async function writeCorpus(grower: CorpusGrower, count: number, path: string) {
  const out = createWriteStream(path);
  for (const fact of grower.facts(count)) {
    if (!out.write(JSON.stringify(fact) + '\n')) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

export function readJsonLines<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T);
}

export interface BenchRequest {
  query: string;
  k: number;
  timeline: boolean;
  true_by_min?: string;
  true_by_max?: string;
}

/**
 * The load's requests: real dev queries and questions of the corpus itself (what an
 * agent asks about things the store knows), every text distinct so that no query
 * vector comes from the cache; windows, orderings and k mixed as agents send them.
 */
export function benchRequests(
  queries: EvalQuery[],
  facts: FactDto[],
  count: number,
  seed: number,
): BenchRequest[] {
  const random = mulberry32(seed);
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)];
  const texts = new Set<string>();
  for (const query of queries) texts.add(query.query);
  while (texts.size < count && texts.size < queries.length + facts.length) {
    texts.add(pick(facts).question);
  }
  const requests: BenchRequest[] = [];
  for (const query of [...texts].slice(0, count)) {
    const request: BenchRequest = {
      query,
      k: pick([10, 10, 20, 20, 20, 100]),
      timeline: random() < 0.5,
    };
    const window = random();
    const end = Date.parse('2026-11-01T00:00:00Z') - Math.floor(random() * 8 * 365) * 86_400_000;
    if (window < 0.3) {
      request.true_by_max = new Date(end).toISOString().slice(0, 10);
    } else if (window < 0.6) {
      const days = pick([30, 90, 365]);
      request.true_by_max = new Date(end).toISOString().slice(0, 10);
      request.true_by_min = new Date(end - days * 86_400_000).toISOString().slice(0, 10);
    }
    requests.push(request);
  }
  return requests;
}

const YEAR = /^(1[5-9]\d\d|20[0-2]\d)$/;

// Runs of capitalised words (with inner "of", "de", … and initials), e.g. "Abel P. Upshur".
const NAME =
  /\b[A-Z][\p{L}'’-]+(?:\s+(?:(?:of|de|la|van|von|the|and)\s+)?(?:[A-Z][\p{L}'’-]+|[A-Z]\.))*/gu;

// Words, split at anything not a letter or digit ("Taiwan’s" is "Taiwan" and "s").
const WORD = /[\p{L}\p{N}]+/gu;

function isNameWord(word: string, vocabulary: Set<string>): boolean {
  return word.length > 1 && /^\p{Lu}/u.test(word) && !vocabulary.has(word.toLowerCase());
}

function hasNameWord(text: string, vocabulary: Set<string>): boolean {
  for (const [word] of text.matchAll(WORD)) if (isNameWord(word, vocabulary)) return true;
  return false;
}

function namesIn(text: string): string[] {
  return [...text.matchAll(NAME)].filter((m) => m.index > 0).map((m) => m[0]);
}

function identity(fact: FactDto): string {
  return `${fact.question}\u0000${fact.answer}\u0000${fact.true_by}`;
}

/** A small seeded generator, so a corpus of a given size and seed is always the same. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
