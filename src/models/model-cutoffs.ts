import { readFileSync } from 'node:fs';
import { projectPath } from '../config/config';

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
 * with the id normalisation its `_about` prescribes.
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
    for (const candidate of candidates(modelId.trim().toLowerCase())) {
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

// Moving aliases change target over time: their cutoff is unknown, never guessed.
const MOVING_ALIAS = /^~|^openrouter\/|-latest$/;

const SNAPSHOT_SUFFIXES = [
  /-\d{4}-\d{2}-\d{2}$/, // OpenAI dated snapshots
  /-\d{8}$/, // Anthropic dated snapshots
  /-(?:preview|exp)-\d{2}-\d{2,4}$/, // Google preview and experimental dates
  /-\d{3}$/, // Google version suffixes such as -001
];

function* candidates(id: string): Generator<string> {
  yield id;
  if (MOVING_ALIAS.test(id)) return;
  const variantless = id.replace(/:[^/]*$/, '');
  const bases = [variantless, variantless.replace(/^(anthropic\/.*)-fast$/, '$1')];
  for (const base of new Set(bases)) {
    yield base;
    for (const suffix of SNAPSHOT_SUFFIXES) {
      if (!suffix.test(base)) continue;
      const undated = base.replace(suffix, '');
      yield undated;
      yield* anthropicSlugs(undated);
    }
  }
}

/** OpenRouter's canonical Anthropic slugs put the version first: claude-4-sonnet, claude-3-7-sonnet. */
function* anthropicSlugs(id: string): Generator<string> {
  const m = /^anthropic\/claude-(\d+)(?:-(\d+))?-([a-z]+)$/.exec(id);
  if (!m) return;
  const version = m[2] ? `${m[1]}.${m[2]}` : m[1];
  yield `anthropic/claude-${version}-${m[3]}`;
  yield `anthropic/claude-${m[3]}-${version}`;
}
