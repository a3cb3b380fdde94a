import { FactsRepository, StoredFact } from '../facts/facts.repository';
import { SearchService } from '../search/search.service';
import { UsageError, withContext } from './context';

export async function showFact(id: string): Promise<number> {
  if (!/^\d{1,18}$/.test(id)) throw new UsageError(`a fact id is a number, got "${id}"`);
  const fact = await withContext((context) => context.get(FactsRepository).show(id));
  if (!fact) throw new UsageError(`no fact ${id}`);
  console.log(
    [
      `fact ${fact.id}`,
      `question: ${fact.question}`,
      `answer:   ${fact.answer}`,
      `true_by:  ${fact.true_by ?? 'unknown'}`,
      `sources:`,
      ...fact.sources.map((url) => `  ${url}`),
      `stored ${fact.created_at.toISOString()}, last merged ${fact.updated_at.toISOString()}`,
      `ingested from:`,
      ...(fact.origins?.length ? [] : ['  not recorded (ingested before provenance was kept)']),
      ...(fact.origins ?? []).map(
        (origin) =>
          `  ${origin.kind} ${origin.origin}` +
          (origin.source_id
            ? ` (source ${origin.source_id}${origin.source_active ? '' : ', removed'})`
            : '') +
          `, first ${origin.first_at.toISOString()}, last ${origin.last_at.toISOString()}`,
      ),
    ].join('\n'),
  );
  return 0;
}

export async function findFacts(text: string, options: { limit?: string }): Promise<number> {
  const limit = Number(options.limit ?? 20);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new UsageError(`--limit must be an integer from 1 to 1000, got "${options.limit}"`);
  }
  if (!text.trim()) throw new UsageError('give some words of the question');
  const facts = await withContext((context) =>
    context.get(FactsRepository).find(text.trim(), limit),
  );
  if (facts.length === 0) console.error('no fact has that in its question');
  for (const fact of facts) console.log(line(fact));
  return 0;
}

function line(fact: StoredFact): string {
  return `${fact.id}\t${fact.true_by ?? 'undated'}\t${fact.question}\t${fact.answer}`;
}

export interface ExplainOptions {
  trueByMin?: string;
  trueByMax?: string;
  k: string;
}

/** Prints the plan the store runs a search with, as the service's own session runs it. */
export async function explainSearch(question: string, options: ExplainOptions): Promise<number> {
  const k = Number(options.k);
  if (!Number.isInteger(k)) throw new UsageError(`--k must be an integer, got "${options.k}"`);
  const plan = await withContext((context) =>
    context.get(SearchService).explain({
      query: question,
      k,
      true_by_min: options.trueByMin,
      true_by_max: options.trueByMax,
    }),
  );
  console.log(plan);
  return 0;
}
