import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Parser, SparqlQuery } from 'sparqljs';
import { DomainError } from '../common/problem';
import { SOURCE_KINDS, SourceKind } from './sources.repository';

/** A source given wrongly; the message says how. */
export class SourceInputError extends DomainError {
  constructor(detail: string) {
    super('invalid-source', 'Invalid source', detail);
  }
}

const MIN_EVERY_SECONDS = 60;

/**
 * An http(s) URL; for Wikidata also a local dump, as a `file:` URL or an absolute
 * path, which must exist.
 */
export function checkUrl(url: string, kind: SourceKind): string {
  const text = url.trim();
  if (kind === 'wikidata' && isAbsolute(text)) return checkDump(pathToFileURL(text));
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new SourceInputError(`not a URL: "${url}"`);
  }
  if (kind === 'wikidata' && parsed.protocol === 'file:') return checkDump(parsed);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new SourceInputError(
      `a source must be an http(s) URL${kind === 'wikidata' ? ' or a local dump file' : ''}, got "${url}"`,
    );
  }
  return parsed.href;
}

function checkDump(url: URL): string {
  const path = fileURLToPath(url);
  if (!existsSync(path)) throw new SourceInputError(`no such file: ${path}`);
  return url.href;
}

export function checkKind(kind: string): SourceKind {
  if (!(SOURCE_KINDS as readonly string[]).includes(kind)) {
    throw new SourceInputError(`--kind must be one of ${SOURCE_KINDS.join(', ')}, got "${kind}"`);
  }
  return kind as SourceKind;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `90s`, `15m`, `6h`, `1d` as seconds; at least a minute, at most 30 days. */
export function parseInterval(every: string): number {
  const m = /^\s*(\d+)\s*([smhd])\s*$/.exec(every);
  const seconds = m ? Number(m[1]) * UNITS[m[2]] : NaN;
  if (!(seconds >= MIN_EVERY_SECONDS && seconds <= 30 * 86_400)) {
    throw new SourceInputError(
      `--every must be a duration such as 15m, 6h or 1d, from 1m to 30d; got "${every}"`,
    );
  }
  return seconds;
}

/** Variables a fact query must select; `?true_by` may be left unbound. */
const FACT_VARIABLES = ['question', 'answer', 'true_by', 'source'];

/**
 * A SPARQL 1.1 SELECT query of the fact variables, checked before it is stored so that
 * a typo is told at once rather than by the endpoint on the first run.
 */
export function checkQuery(text: string, name: string): string {
  let parsed: SparqlQuery;
  try {
    parsed = new Parser().parse(text);
  } catch (err) {
    throw new SourceInputError(
      `${name} is not SPARQL 1.1: ${(err as Error).message.split('\n')[0]}`,
    );
  }
  if (parsed.type !== 'query' || parsed.queryType !== 'SELECT') {
    throw new SourceInputError(`${name} must be a SELECT query`);
  }
  const selected = parsed.variables.map((variable) =>
    'termType' in variable ? variable.value : variable.variable.value,
  );
  const missing = FACT_VARIABLES.filter((variable) => !selected.includes(variable));
  if (missing.length > 0 && !selected.includes('*')) {
    throw new SourceInputError(
      `${name} must select ?question, ?answer, ?true_by and ?source; missing ${missing.map((v) => `?${v}`).join(', ')}`,
    );
  }
  return text;
}
