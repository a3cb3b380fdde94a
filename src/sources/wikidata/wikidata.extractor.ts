import { FactDto } from '../../facts/fact.dto';
import { Fetcher, FetchError } from '../fetcher';
import { Draft, draftsOf, Entity, EntityFormatError, labelOf, readEntities } from './entities';

export interface WikidataFacts {
  facts: FactDto[];
  /** Why statements or entities were left out, one line each. */
  rejected: string[];
}

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

  async extract(text: string): Promise<WikidataFacts> {
    const rejected: string[] = [];
    const drafts: Draft[] = [];
    for (const entity of readEntities(text)) {
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
    this.labels.set(entity.id, subject);
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
