import { parseDay } from '../../common/dates';
import { FactDto, MAX_SOURCES } from '../../facts/fact.dto';
import { formatAmount } from '../wikidata/entities';

/** A response that is not a SPARQL JSON result of the fact variables: nothing of it is stored. */
export class SparqlResultError extends Error {}

export interface SparqlFacts {
  facts: FactDto[];
  rows: number;
  /** Why rows were skipped, one reason per row. */
  rejected: string[];
}

/** One RDF term of a binding (SPARQL 1.1 Query Results JSON Format, section 3.2.2). */
interface Term {
  type: 'uri' | 'literal' | 'typed-literal' | 'bnode';
  value: string;
  datatype?: string;
}
type Row = Record<string, Term | undefined>;

/** The variables a fact query selects; `?true_by` may be left out or unbound. */
const REQUIRED_VARIABLES = ['question', 'answer', 'source'];
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const NUMERIC = ['decimal', 'integer', 'double', 'float', 'long', 'int'].map((t) => XSD + t);
const ENTITY_ID = /^[QPL]\d+$/;

/**
 * The facts of a SPARQL JSON result whose rows each state one fact: `?question`,
 * `?answer`, `?true_by` (a date or dateTime; unbound: null) and `?source` (a URL).
 * Rows with the same question, answer and date become one fact with all their
 * sources. A row that breaks the fact rules is skipped and its reason kept; a
 * response that is not such a result at all is refused whole.
 */
export function factsOfResult(text: string): SparqlFacts {
  const rows = bindingsOf(text);
  const facts = new Map<string, FactDto>();
  const rejected: string[] = [];
  for (const row of rows) {
    const fact = factOf(row);
    if (typeof fact === 'string') {
      rejected.push(fact);
      continue;
    }
    const key = JSON.stringify([fact.question, fact.answer, fact.true_by]);
    const known = facts.get(key);
    if (!known) facts.set(key, fact);
    else for (const url of fact.sources) if (!known.sources.includes(url)) known.sources.push(url);
  }
  for (const fact of facts.values()) fact.sources = fact.sources.slice(0, MAX_SOURCES);
  return { facts: [...facts.values()], rows: rows.length, rejected };
}

function bindingsOf(text: string): Row[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SparqlResultError('malformed result: not JSON');
  }
  const vars = isObject(json) && isObject(json.head) ? json.head.vars : undefined;
  const bindings = isObject(json) && isObject(json.results) ? json.results.bindings : undefined;
  if (!Array.isArray(vars) || !Array.isArray(bindings)) {
    throw new SparqlResultError('malformed result: no head.vars and results.bindings');
  }
  const missing = REQUIRED_VARIABLES.filter((name) => !vars.includes(name));
  if (missing.length > 0) {
    throw new SparqlResultError(
      `the query must select ?question, ?answer, ?true_by and ?source; missing ${missing.map((name) => `?${name}`).join(', ')}`,
    );
  }
  if (!bindings.every(isRow)) {
    throw new SparqlResultError('malformed result: a binding is not a map of RDF terms');
  }
  return bindings;
}

/** A fact, or why the row cannot be one. */
function factOf(row: Row): FactDto | string {
  const question = row.question;
  if (!question?.value.trim()) return 'row without a question';
  if (question.type === 'uri' || question.type === 'bnode') return 'question that is not text';
  const answer = answerOf(row.answer);
  if ('reason' in answer) return answer.reason;
  const trueBy = dayOf(row.true_by);
  if (trueBy === undefined) return 'true_by that is not a date from year 1 to 9999';
  const source = row.source;
  if (source && !/^https?:\/\/\S+$/.test(source.value)) return 'source that is not an http(s) URL';
  return {
    question: question.value.trim(),
    answer: answer.text,
    true_by: trueBy,
    sources: source ? [source.value] : [],
  };
}

/** The answer's text, or why there is none. */
function answerOf(term: Term | undefined): { text: string } | { reason: string } {
  if (!term?.value.trim()) return { reason: 'row without an answer' };
  if (term.type === 'uri' || term.type === 'bnode') return { reason: 'answer that is not text' };
  // Wikidata's label service falls back to the item's id when it has no label.
  if (ENTITY_ID.test(term.value)) return { reason: 'answer without a label' };
  if (!term.datatype || !NUMERIC.includes(term.datatype)) return { text: term.value.trim() };
  const amount = formatAmount(term.value);
  return amount ? { text: amount } : { reason: 'answer that is not a number' };
}

/** `YYYY-MM-DD` of a date or dateTime literal; null when unbound; undefined when unusable. */
function dayOf(term: Term | undefined): string | null | undefined {
  if (!term) return null;
  if (term.type === 'uri' || term.type === 'bnode') return undefined;
  const m = /^(\d{4}-\d\d-\d\d)(?:T|Z|$|[+-]\d\d:\d\d$)/.exec(term.value.trim());
  return m && !m[1].startsWith('0000') ? parseDay(m[1]) : undefined;
}

function isRow(value: unknown): value is Row {
  return isObject(value) && Object.values(value).every(isTerm);
}

function isTerm(value: unknown): value is Term {
  return (
    isObject(value) &&
    typeof value.value === 'string' &&
    ['uri', 'literal', 'typed-literal', 'bnode'].includes(value.type as string) &&
    (value.datatype === undefined || typeof value.datatype === 'string')
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
