import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { FactDto } from '../facts/fact.dto';
import { EvalQuery } from '../facts/evaluation';

/**
 * Grows a benchmark corpus of any size from the shipped facts: every shipped fact
 * once, then variants of them in which names, numbers and years are swapped for
 * others seen in the corpus, dated near the original's day. The text stays real
 * questions about real kinds of things, but with enough distinct entities that a
 * million lines are not a repetition of a few thousand strings; the shipped facts
 * stay in, so the dev queries still have their answers among the variants.
 */
export class CorpusGrower {
  private readonly names: string[];
  private readonly random: () => number;

  constructor(
    private readonly base: FactDto[],
    seed: number,
  ) {
    this.random = mulberry32(seed);
    const names = new Set<string>();
    for (const fact of base) {
      for (const name of namesIn(fact.question)) names.add(name);
      for (const name of namesIn(fact.answer)) names.add(name);
    }
    this.names = [...names].sort();
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
      const fact = this.variant(this.base[Math.floor(this.random() * this.base.length)], made);
      const id = identity(fact);
      if (seen.has(id)) continue;
      // Only recent identities matter for collisions at scale; bound the memory.
      if (seen.size > 2_000_000) seen.clear();
      seen.add(id);
      made++;
      yield fact;
    }
  }

  private variant(template: FactDto, n: number): FactDto {
    const swaps = new Map<string, string>();
    // Years in the text move with the fact's day, so "which 2025 film" stays plausible.
    const shiftDays = Math.round((this.random() * 2 - 1) * 3 * 365);
    const years = Math.round(shiftDays / 365.25);
    const swap = (text: string) =>
      text
        .replace(NAME, (name, offset: number) => {
          // The first word of a sentence is capitalised anyway; keep it.
          if (offset === 0) return name;
          if (!swaps.has(name))
            swaps.set(name, this.names[Math.floor(this.random() * this.names.length)]);
          return swaps.get(name)!;
        })
        .replace(/\b\d[\d,.]*\b/g, (number) =>
          YEAR.test(number) ? String(Math.min(2026, Number(number) + years)) : this.vary(number),
        );
    const question = swap(template.question);
    let answer = swap(template.answer);
    // An answer without names or numbers: another fact's, so the pair is still new.
    if (answer === template.answer)
      answer = this.base[Math.floor(this.random() * this.base.length)].answer;
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
