import type { CorpusStatus } from '../corpus/corpus.service';
import type { FactAnswer } from '../search/search.service';

/**
 * The facts as a short list a model reads at a glance: one line each with the day,
 * the answer, the question and the first source.
 */
export function answerText(answer: FactAnswer): string {
  const lines = answer.facts.map((fact) =>
    `- ${fact.true_by ?? 'undated'}: ${fact.answer} (${fact.question}) ${fact.sources[0] ?? ''}`.trimEnd(),
  );
  return [heading(answer), ...lines].join('\n');
}

function heading(answer: FactAnswer): string {
  const count =
    (answer.facts.length === 1 ? '1 fact' : `${answer.facts.length} facts`) +
    (answer.match === 'nearest' && answer.facts.length > 0
      ? ', none matching the question closely: only the nearest, possibly unrelated'
      : '');
  if (answer.modelCutoff === 'unknown') {
    return `${count}. The model_id is not in the cutoff table (GET /v1/models), so no date floor applied:`;
  }
  if (answer.modelCutoff)
    return `${count} dated after your training cutoff (${answer.modelCutoff}):`;
  return `${count}:`;
}

/** How fresh the store is, in two lines. */
export function statusText(status: CorpusStatus): string {
  const newest = status.newest_true_by ?? 'none dated';
  const sources = status.sources.map(
    (kind) =>
      `${kind.kind} ${kind.sources} (last success ${kind.last_success_at?.slice(0, 10) ?? 'never'})`,
  );
  return [
    `${status.facts.toLocaleString('en-US')} facts; the newest is dated ${newest}.`,
    `Sources: ${sources.join(', ')}.`,
  ].join('\n');
}
