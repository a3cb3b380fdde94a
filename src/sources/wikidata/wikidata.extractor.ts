import { FactDto } from '../../facts/fact.dto';
import { Fetcher, FetchError } from '../fetcher';
import {
  documentEntities,
  Draft,
  draftsOf,
  dumpEntities,
  Entity,
  EntityFormatError,
  isDump,
  labelOf,
} from './entities';

export interface WikidataFacts {
  facts: FactDto[];
  /** Why statements or entities were left out, one line each. */
  rejected: string[];
}

/** Entities of a dump turned into facts and stored together. */
const DUMP_BATCH = 1000;
/**
 * Labels remembered from a dump; beyond this many, values are looked up in the API.
 * Keeps a worker streaming a whole dump within a bounded memory.
 */
const MAX_REMEMBERED_LABELS = 2_000_000;
/** wbgetentities answers at most 50 ids per call. */
const LABEL_BATCH = 50;

/**
 * Facts from Wikidata entity documents and dumps: each statement of a property in
 * the table becomes a question about the entity answered by the statement's value.
 * Values that are other entities are answered by their English label, taken from
 * the entities of the same body where they appear, else asked of the Wikidata API.
 */
export class WikidataExtractor {
  private readonly labels = new Map<string, string>();

  constructor(
    private readonly fetcher: Fetcher,
    /** `…/w/api.php` of a Wikibase. */
    private readonly apiUrl: string,
  ) {}

  /** Facts of an entity document, or of a dump given whole. */
  async extract(text: string): Promise<WikidataFacts> {
    if (!isDump(text)) return this.factsOf(documentEntities(text));
    const all: WikidataFacts = { facts: [], rejected: [] };
    for await (const batch of this.extractDump(text.split('\n'))) {
      all.facts.push(...batch.facts);
      all.rejected.push(...batch.rejected);
    }
    return all;
  }

  /** Facts of a dump read line by line, a batch of entities at a time. */
  async *extractDump(
    lines: Iterable<string> | AsyncIterable<string>,
    batchSize = DUMP_BATCH,
  ): AsyncGenerator<WikidataFacts> {
    let batch: (Entity | EntityFormatError)[] = [];
    for await (const entity of dumpEntities(lines)) {
      batch.push(entity);
      if (batch.length >= batchSize) {
        yield await this.factsOf(batch);
        batch = [];
      }
    }
    if (batch.length > 0) yield await this.factsOf(batch);
  }

  private async factsOf(entities: (Entity | EntityFormatError)[]): Promise<WikidataFacts> {
    const rejected: string[] = [];
    const drafts: Draft[] = [];
    for (const entity of entities) {
      if (entity instanceof EntityFormatError) rejected.push(entity.message);
      else drafts.push(...this.draftsOf(entity, rejected));
    }
    await this.learnLabels(drafts.flatMap((draft) => (draft.valueId ? [draft.valueId] : [])));
    const facts: FactDto[] = [];
    for (const { valueId, answer, ...draft } of drafts) {
      const label = valueId ? this.labels.get(valueId) : answer;
      if (label) facts.push({ ...draft, answer: label });
      else rejected.push(`${draft.question}: no English label for ${valueId}`);
    }
    return { facts, rejected };
  }

  private draftsOf(entity: Entity, rejected: string[]): Draft[] {
    const subject = labelOf(entity);
    if (!subject) {
      rejected.push(`${entity.id}: no English label`);
      return [];
    }
    if (this.labels.size < MAX_REMEMBERED_LABELS) this.labels.set(entity.id, subject);
    return draftsOf(entity, subject);
  }

  /** Asks the API for the labels not seen yet, 50 at a time. */
  private async learnLabels(ids: string[]): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.labels.has(id));
    for (let i = 0; i < missing.length; i += LABEL_BATCH) {
      const batch = missing.slice(i, i + LABEL_BATCH);
      const url = new URL(this.apiUrl);
      url.search = new URLSearchParams({
        action: 'wbgetentities',
        ids: batch.join('|'),
        props: 'labels',
        languages: 'en',
        format: 'json',
      }).toString();
      const fetched = await this.fetcher.get(url.toString());
      if (fetched.status !== 'ok') continue;
      for (const [id, label] of labelsOf(fetched.body.toString('utf8'))) this.labels.set(id, label);
    }
  }
}

function labelsOf(text: string): [string, string][] {
  let json: { entities?: Record<string, Entity> };
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    throw new FetchError('the Wikidata API answered with something that is not JSON');
  }
  return Object.values(json.entities ?? {}).flatMap((entity) => {
    const label = labelOf(entity);
    return label ? [[entity.id, label] as [string, string]] : [];
  });
}
