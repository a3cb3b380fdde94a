import { readFileSync } from 'node:fs';
import { projectPath } from '../config/config';
import { candidateIds } from './model-ids';

export interface ModelCutoff {
  id: string;
  cutoff: string;
  cutoff_precision: 'day' | 'month' | 'year';
  source: string;
  reliable_knowledge_cutoff?: string;
}

export const CUTOFFS_FILE = projectPath('corpus', 'model-cutoffs.json');

/**
 * Model id → training cutoff, from the shipped table (corpus/model-cutoffs.json),
 * for the ids agents send: vendors' own, routing services', gateways' (see model-ids.ts).
 */
export class ModelCutoffs {
  private readonly byId = new Map<string, ModelCutoff>();

  constructor(entries: ModelCutoff[]) {
    for (const entry of entries) this.byId.set(entry.id, entry);
  }

  static fromFile(path = CUTOFFS_FILE): ModelCutoffs {
    const table = JSON.parse(readFileSync(path, 'utf8')) as { models: ModelCutoff[] };
    return new ModelCutoffs(
      table.models.map(({ id, cutoff, cutoff_precision, source, reliable_knowledge_cutoff }) => ({
        id,
        cutoff,
        cutoff_precision,
        source,
        ...(reliable_knowledge_cutoff ? { reliable_knowledge_cutoff } : {}),
      })),
    );
  }

  list(): ModelCutoff[] {
    return [...this.byId.values()];
  }

  /** The entry for `modelId`, or undefined when the id (after normalisation) is unknown. */
  lookup(modelId: string): ModelCutoff | undefined {
    for (const candidate of candidateIds(modelId)) {
      const hit = this.byId.get(candidate) ?? this.byBareName(candidate);
      if (hit) return hit;
    }
    return undefined;
  }

  /** Ids sent without a vendor ("gpt-4o") resolve when exactly one vendor has that model. */
  private byBareName(name: string): ModelCutoff | undefined {
    if (name.includes('/')) return undefined;
    const hits = this.list().filter((entry) => entry.id.endsWith(`/${name}`));
    return hits.length === 1 ? hits[0] : undefined;
  }
}
