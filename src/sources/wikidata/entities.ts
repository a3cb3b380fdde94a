import { parseDay } from '../../common/dates';
import { END_TIME, POINT_IN_TIME, PROPERTIES, REFERENCE_URL, START_TIME } from './properties';

/** The parts of a Wikidata entity (API document or dump line) that facts are made of. */
export interface Entity {
  id: string;
  labels?: Record<string, { value?: string } | undefined>;
  claims?: Record<string, Statement[] | undefined>;
}

interface Snak {
  snaktype?: string;
  datavalue?: { value?: unknown };
}

interface Statement {
  mainsnak?: Snak;
  rank?: string;
  qualifiers?: Record<string, Snak[] | undefined>;
  references?: { snaks?: Record<string, Snak[] | undefined> }[];
}

/** A fact before the label of its value is known (`valueId`), or already answered. */
export interface Draft {
  question: string;
  answer?: string;
  valueId?: string;
  true_by: string | null;
  sources: string[];
}

export class EntityFormatError extends Error {}

/** A body in the JSON dump format: `[` on a line of its own, then one entity per line. */
export function isDump(text: string): boolean {
  return /^\s*\[[ \t]*\r?\n/.test(text);
}

/**
 * The entities of an API document (`{"entities": {…}}`, also a redirect's) or of a
 * bare entity document.
 */
export function documentEntities(text: string): Entity[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new EntityFormatError(`not Wikidata JSON (${(err as Error).message})`);
  }
  const entities =
    isObject(json) && isObject(json.entities) ? Object.values(json.entities) : [json];
  if (!entities.every(isEntity)) {
    throw new EntityFormatError('not a Wikidata entity document (no "id" and "claims")');
  }
  return entities;
}

/**
 * The entities of the JSON dump format (`[`, one entity per line ending in a comma,
 * `]`), read line by line so that a dump of any size streams through. A truncated
 * dump without the closing bracket is read as far as it goes; a bad line is yielded
 * as an error and the lines after it are still read.
 */
export async function* dumpEntities(
  lines: Iterable<string> | AsyncIterable<string>,
): AsyncGenerator<Entity | EntityFormatError> {
  let number = 0;
  for await (const raw of lines) {
    number++;
    const line = raw.trim().replace(/,$/, '');
    if (line === '' || line === '[' || line === ']') continue;
    try {
      const entity: unknown = JSON.parse(line);
      if (isEntity(entity)) yield entity;
      else yield new EntityFormatError(`dump line ${number}: not an entity`);
    } catch (err) {
      yield new EntityFormatError(`dump line ${number}: ${(err as Error).message}`);
    }
  }
}

/** The English label, or undefined. */
export function labelOf(entity: Entity): string | undefined {
  return entity.labels?.en?.value?.trim() || undefined;
}

/**
 * One draft per statement of a property in the table. Deprecated statements, unknown
 * values and ended statements without a start are left out. `true_by` is the start time,
 * else the point in time: an ended statement is dated at its start, so that timeline
 * order puts the holder who started last first.
 */
export function draftsOf(entity: Entity, subject: string): Draft[] {
  const page = `https://www.wikidata.org/wiki/${entity.id}`;
  const drafts: Draft[] = [];
  for (const [property, template] of Object.entries(PROPERTIES)) {
    for (const statement of entity.claims?.[property] ?? []) {
      if (statement.rank === 'deprecated') continue;
      const value = statement.mainsnak?.snaktype === 'value' && statement.mainsnak.datavalue?.value;
      if (!value) continue;
      const question = template.question.replace('{subject}', subject);
      const true_by = dateOf(statement);
      if (true_by === undefined) continue;
      const sources = [page, ...referenceUrls(statement)];
      if (template.value === 'item') {
        const valueId = itemId(value);
        if (valueId) drafts.push({ question, valueId, true_by, sources });
      } else {
        const answer = quantity(value);
        if (answer) drafts.push({ question, answer, true_by, sources });
      }
    }
  }
  return drafts;
}

/**
 * `YYYY-MM-DD`; null when the statement carries no date and has not ended; undefined
 * when it cannot be dated usefully (an unusable date, or an end without a start).
 */
function dateOf(statement: Statement): string | null | undefined {
  for (const qualifier of [START_TIME, POINT_IN_TIME]) {
    for (const snak of statement.qualifiers?.[qualifier] ?? []) {
      if (snak.snaktype !== 'value') continue;
      return wikidataDay(snak.datavalue?.value) ?? undefined;
    }
  }
  return statement.qualifiers?.[END_TIME]?.length ? undefined : null;
}

/**
 * A Wikidata time value as a day: year precision (9) gives 1 January, month (10)
 * the first of the month. Coarser precisions, years before 1 and after 9999 give
 * undefined. Old serialisations pad the year to 11 digits.
 */
export function wikidataDay(value: unknown): string | undefined {
  if (!isObject(value) || typeof value.time !== 'string') return undefined;
  const precision = Number(value.precision ?? 11);
  const m = /^\+0*(\d{1,4})-(\d\d)-(\d\d)T/.exec(value.time);
  if (!m || precision < 9 || Number(m[1]) < 1) return undefined;
  const month = precision >= 10 && m[2] !== '00' ? m[2] : '01';
  const day = precision >= 11 && m[3] !== '00' ? m[3] : '01';
  return parseDay(`${m[1].padStart(4, '0')}-${month}-${day}`);
}

function referenceUrls(statement: Statement): string[] {
  const urls = (statement.references ?? []).flatMap((reference) =>
    (reference.snaks?.[REFERENCE_URL] ?? []).map((snak) => snak.datavalue?.value),
  );
  return urls.filter((url): url is string => typeof url === 'string' && /^https?:\/\//.test(url));
}

/** `Q123` from `{id}` or the 2014 serialisation's `{numeric-id}`. */
function itemId(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  if (typeof value.id === 'string' && /^Q\d+$/.test(value.id)) return value.id;
  const numeric = value['numeric-id'];
  return typeof numeric === 'number' && value['entity-type'] !== 'property'
    ? `Q${numeric}`
    : undefined;
}

const NUMBER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 });

function quantity(value: unknown): string | undefined {
  if (!isObject(value) || typeof value.amount !== 'string') return undefined;
  return formatAmount(value.amount);
}

/** An amount as answers show it (`1,234,567`), so the same number reads alike from every source. */
export function formatAmount(text: string): string | undefined {
  const amount = Number(text);
  return text.trim() && Number.isFinite(amount) ? NUMBER.format(amount) : undefined;
}

function isEntity(value: unknown): value is Entity {
  return isObject(value) && typeof value.id === 'string' && isObject(value.claims ?? {});
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
