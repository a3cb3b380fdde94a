import { nestsDeeperThan, MAX_JSON_DEPTH, wellFormed } from '../common/json-text';
import { DomainError, RequestValidationError } from '../common/problem';
import { checkFact, ParsedLine } from './fact-record';

/** The most facts one push may hold; they are stored in one transaction. */
export const MAX_PUSH_FACTS = 1000;
/** The largest push body, as sent or decoded. */
export const PUSH_BODY_LIMIT = 1024 * 1024;

export interface BatchLine {
  /** The line of a JSON Lines body, or the position (from 1) in a JSON array. */
  number: number;
  parsed: ParsedLine;
}

/** A push over MAX_PUSH_FACTS facts. */
export class BatchTooLargeError extends DomainError {
  constructor(facts: number) {
    super(
      'payload-too-large',
      'Request body too large',
      `A push holds at most ${MAX_PUSH_FACTS} facts (and ${PUSH_BODY_LIMIT / 1024} KiB); ` +
        `this one has ${facts}. Split it into several pushes.`,
    );
  }
}

/** A body that holds no fact, or a strict push with a bad line: refused whole. */
export class FactBatchError extends RequestValidationError {
  constructor(lines: BatchLine[]) {
    const bad = lines.flatMap(({ number, parsed }) =>
      'errors' in parsed ? parsed.errors.map((msg) => ({ loc: ['body', number], msg })) : [],
    );
    super(bad.length ? bad : [{ loc: ['body'], msg: 'holds no facts' }]);
  }
}

/**
 * The facts of a push: JSON Lines (one fact object a line; blank lines are skipped but
 * counted, so numbers match the sender's file), or a JSON array of fact objects. A
 * body declared JSON Lines is read as lines even when its first line is an array.
 */
export function parseFactBatch(text: string, declaredLines = false): BatchLine[] {
  const array = !declaredLines && text.trimStart().startsWith('[');
  const lines = array ? arrayItems(text) : jsonLines(text);
  if (lines.length > MAX_PUSH_FACTS) throw new BatchTooLargeError(lines.length);
  return lines.map(({ number, value }) => ({
    number,
    parsed: 'error' in value ? { errors: [value.error] } : checkFact(value.json),
  }));
}

type Parsed = { json: unknown } | { error: string };

/** JSON text as a value; nesting is capped as for every other body (see json-body.ts). */
function parse(text: string, depth = MAX_JSON_DEPTH): Parsed {
  if (nestsDeeperThan(Buffer.from(text), depth)) {
    return { error: `arrays and objects nest deeper than ${depth} levels` };
  }
  try {
    return { json: JSON.parse(text, wellFormed) as unknown };
  } catch (err) {
    return { error: `not valid JSON (${(err as Error).message})` };
  }
}

function arrayItems(text: string): { number: number; value: Parsed }[] {
  // One level more than a line: the array that holds the facts.
  const value = parse(text, MAX_JSON_DEPTH + 1);
  if ('error' in value || !Array.isArray(value.json)) {
    throw new RequestValidationError([
      { loc: ['body'], msg: `must be a JSON array of facts or JSON Lines; ${describe(value)}` },
    ]);
  }
  return (value.json as unknown[]).map((json, i) => ({ number: i + 1, value: { json } }));
}

function jsonLines(text: string): { number: number; value: Parsed }[] {
  return text
    .split('\n')
    .map((line, i) => ({ number: i + 1, line }))
    .filter(({ line }) => line.trim())
    .map(({ number, line }) => ({ number, value: parse(line) }));
}

function describe(value: Parsed): string {
  return 'error' in value ? value.error : 'not an array';
}
