import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { plainToInstance } from 'class-transformer';
import { isURL, validateSync } from 'class-validator';
import { wellFormed } from '../common/json-text';
import { FactDto, SOURCE_URL_RULE } from './fact.dto';

/** A fact kept, with how many malformed source URLs were dropped from it; or why not. */
export type ParsedLine = { fact: FactDto; droppedSources: number } | { errors: string[] };

/** Checks one JSON Lines line against the fact shape; lists every problem found. */
export function parseFactLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line, wellFormed);
  } catch (err) {
    return { errors: [`not valid JSON (${(err as Error).message})`] };
  }
  return checkFact(value);
}

export function checkFact(value: unknown): ParsedLine {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { errors: ['a fact must be a JSON object'] };
  }
  const missing = ['question', 'answer', 'true_by', 'sources'].filter((field) => !(field in value));
  if (missing.length > 0) {
    return {
      errors: missing.map(
        (field) => `${field} is required${field === 'true_by' ? ' (null when unknown)' : ''}`,
      ),
    };
  }
  // PostgreSQL text cannot hold U+0000: refused here rather than failing the batch.
  if (JSON.stringify(value).includes('\\u0000')) {
    return { errors: ['a fact must not contain the NUL character (U+0000)'] };
  }
  const fact = plainToInstance(FactDto, value);
  const droppedSources = dropMalformedSources(fact);
  const problems = validateSync(fact, { whitelist: true });
  if (problems.length > 0) {
    return { errors: problems.flatMap((problem) => Object.values(problem.constraints ?? {})) };
  }
  return {
    fact: {
      question: fact.question,
      answer: fact.answer,
      true_by: fact.true_by,
      sources: fact.sources,
    },
    droppedSources,
  };
}

/**
 * One bad URL should not cost a fact its good ones: drops the sources that break the
 * URL rule when at least one valid source remains. With none remaining, the sources
 * are left as they were, so validation refuses the fact with the usual reason.
 */
function dropMalformedSources(fact: FactDto): number {
  const sources: unknown = fact.sources;
  if (!Array.isArray(sources)) return 0;
  const valid = sources.filter(
    (source): source is string => typeof source === 'string' && isURL(source, SOURCE_URL_RULE),
  );
  if (valid.length === 0) return 0;
  fact.sources = valid;
  return sources.length - valid.length;
}

/**
 * Two facts are the same when their question, answer and day agree after case,
 * Unicode form, quote style and whitespace are normalised.
 */
export function dedupKey(fact: Pick<FactDto, 'question' | 'answer' | 'true_by'>): string {
  return createHash('sha256')
    .update([normalise(fact.question), normalise(fact.answer), fact.true_by ?? ''].join('\u0000'))
    .digest('hex');
}

function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u201b\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201f\u2033]/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A facts file that cannot be read; the message names it and the reason. */
export class IngestFileError extends Error {}

/** The non-blank lines of a JSON Lines file, parsed, with their numbers and bytes read so far. */
export async function* readFactLines(path: string) {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) {
    number++;
    if (!line.trim()) continue;
    yield { number, parsed: parseFactLine(line), bytes: stream.bytesRead };
  }
}

/** Size of the file in bytes; also the check that it can be read at all. */
export function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch (err) {
    throw new IngestFileError(
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}
