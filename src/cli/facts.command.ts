import type { AdminFactDto } from '../admin/facts-admin.dto';
import { FactsRepository, StoredFact } from '../facts/facts.repository';
import { FactRecord, RetractionsService } from '../facts/retractions.service';
import { SearchService } from '../search/search.service';
import { AdminClient, auditCli, offlineOrThroughServer } from './admin-client';
import { UsageError, withContext } from './context';

export async function showFact(id: string): Promise<number> {
  checkId(id);
  const fact = await offlineOrThroughServer(
    (context) => context.get(RetractionsService).show(id),
    (admin) => fetchFact(admin, 'GET', `/admin/facts/${id}`),
  );
  console.log(describe(fact));
  return 0;
}

export async function retractFact(id: string, options: { reason?: string }): Promise<number> {
  checkId(id);
  const reason = options.reason?.trim();
  if (!reason) throw new UsageError('say why with --reason');
  const fact = await offlineOrThroughServer(
    async (context) => {
      const retracted = await context.get(RetractionsService).retract(id, reason, 'cli');
      await auditCli(context, 'fact.retract', id, { reason, question: retracted.question });
      return retracted;
    },
    (admin) => fetchFact(admin, 'DELETE', `/admin/facts/${id}`, { reason }),
  );
  console.log(describe(fact));
  return 0;
}

export async function restoreFact(id: string): Promise<number> {
  checkId(id);
  const fact = await offlineOrThroughServer(
    async (context) => {
      const restored = await context.get(RetractionsService).restore(id);
      await auditCli(context, 'fact.restore', id, { question: restored.question });
      return restored;
    },
    (admin) => fetchFact(admin, 'POST', `/admin/facts/${id}/restore`),
  );
  console.log(describe(fact));
  return 0;
}

function checkId(id: string): void {
  if (!/^\d{1,18}$/.test(id)) throw new UsageError(`a fact id is a number, got "${id}"`);
}

function describe(fact: FactRecord): string {
  const { retraction } = fact;
  return [
    `fact ${fact.id}`,
    `question: ${fact.question}`,
    `answer:   ${fact.answer}`,
    `true_by:  ${fact.true_by ?? 'unknown'}`,
    `sources:`,
    ...fact.sources.map((url) => `  ${url}`),
    `stored ${fact.created_at.toISOString()}, last merged ${fact.updated_at.toISOString()}`,
    ...(retraction
      ? [
          `RETRACTED ${retraction.retracted_at.toISOString()} by ${retraction.retracted_by}: ` +
            retraction.reason,
        ]
      : []),
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
  ].join('\n');
}

type FoundFact = Pick<StoredFact, 'id' | 'true_by' | 'question' | 'answer'>;

export async function findFacts(text: string, options: { limit?: string }): Promise<number> {
  const limit = Number(options.limit ?? 20);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new UsageError(`--limit must be an integer from 1 to 1000, got "${options.limit}"`);
  }
  if (!text.trim()) throw new UsageError('give some words of the question');
  const facts = await offlineOrThroughServer<FoundFact[]>(
    (context) => context.get(FactsRepository).find(text.trim(), limit),
    (admin) =>
      admin.call<AdminFactDto[]>(
        'GET',
        `/admin/facts?${new URLSearchParams({ q: text.trim(), limit: String(limit), state: 'live' }).toString()}`,
      ),
  );
  if (facts.length === 0) console.error('no fact has that in its question');
  for (const fact of facts) {
    console.log(`${fact.id}\t${fact.true_by ?? 'undated'}\t${fact.question}\t${fact.answer}`);
  }
  return 0;
}

/** A fact as the admin API answers it, with its dates as dates again. */
async function fetchFact(
  admin: AdminClient,
  method: string,
  path: string,
  body?: unknown,
): Promise<FactRecord> {
  const fact = await admin.call<AdminFactDto>(method, path, body);
  return {
    ...fact,
    created_at: new Date(fact.created_at),
    updated_at: new Date(fact.updated_at),
    origins: fact.origins.map((origin) => ({
      ...origin,
      first_at: new Date(origin.first_at),
      last_at: new Date(origin.last_at),
    })),
    retraction: fact.retraction && {
      ...fact.retraction,
      retracted_at: new Date(fact.retraction.retracted_at),
    },
  };
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
