import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import { AppConfig, buildConfig } from '../config/config';
import { FactsRepository } from '../facts/facts.repository';
import { IngestService } from '../facts/ingest.service';
import { Ranking, rankingFor } from '../facts/ranking';
import { EMBEDDER, Embedder } from '../embeddings/embedder';
import { SearchService } from '../search/search.service';
import { EVAL_K, EvalQuery, Metrics, scoreQueries, sweep, QueryOutcome } from '../facts/evaluation';
import { withContext, UsageError } from './context';

export interface EvalOptions {
  facts?: string;
  mode: string;
  sweep?: boolean;
  json?: boolean;
  misses?: boolean;
  k?: string;
}

const MODES: Record<string, Partial<Ranking>> = {
  fused: {},
  lexical: { sides: 'lexical', semanticWeight: 0 },
  semantic: { sides: 'semantic', semanticWeight: 1 },
};

export async function evalCommand(file: string, options: EvalOptions): Promise<number> {
  const queries = readQueries(file);
  const k = Number(options.k ?? EVAL_K);
  if (!Number.isInteger(k) || k < 10 || k > 100)
    throw new UsageError('--k must be a whole number from 10 to 100');
  if (!(options.mode in MODES))
    throw new UsageError(`--mode must be one of ${Object.keys(MODES).join(', ')}`);
  const env = { ...process.env };
  const scratch = options.facts ? mkdtempSync(join(tmpdir(), 'freshfacts-eval-')) : undefined;
  if (scratch) {
    Object.assign(env, {
      FRESHFACTS_DATA_DIR: scratch,
      DATABASE_URL: '',
      FRESHFACTS_SEED_FILE: '',
    });
  }
  const config = buildConfig(env);
  try {
    return await withContext(async (context) => {
      if (options.facts) await context.get(IngestService).ingestFile(options.facts);
      else await seedEmptyStore(context, config);
      const model = context.get<Embedder>(EMBEDDER).model;
      const ranking = { ...rankingFor(model), ...MODES[options.mode] };
      if (options.sweep) return runSweep(context, queries, ranking, options, k);
      const outcomes = await runQueries(context, queries, ranking, k);
      const metrics = scoreQueries(queries, outcomes);
      if (options.misses) printMisses(queries, outcomes);
      print(metrics, options.json);
      // A fact outside the window the caller asked for is a bug, not a quality figure.
      if (metrics.all.outsideWindow === 0) return 0;
      console.error(`eval: ${metrics.all.outsideWindow} facts were returned outside their window`);
      return 1;
    }, config);
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/** An empty store would score zero everywhere; load what `serve` would load. */
async function seedEmptyStore(context: INestApplicationContext, config: AppConfig): Promise<void> {
  if ((await context.get(FactsRepository).count()) > 0) return;
  if (!config.seedFile)
    throw new UsageError(
      'the store holds no facts: pass --facts FILE (or set FRESHFACTS_SEED_FILE)',
    );
  console.error(`eval: the store holds no facts; loading ${config.seedFile} first, as serve would`);
  await context.get(IngestService).ingestFile(config.seedFile);
}

async function runQueries(
  context: INestApplicationContext,
  queries: EvalQuery[],
  ranking: Ranking,
  k: number,
): Promise<QueryOutcome[]> {
  const search = context.get(SearchService);
  const outcomes: QueryOutcome[] = [];
  for (const query of queries) {
    const answer = await search.find(
      { query: query.query, true_by_max: query.true_by_max, k },
      ranking,
    );
    outcomes.push({ facts: answer.facts });
  }
  return outcomes;
}

async function runSweep(
  context: INestApplicationContext,
  queries: EvalQuery[],
  ranking: Ranking,
  options: EvalOptions,
  k: number,
): Promise<number> {
  const best = await sweep(context, queries, ranking);
  console.error(`best of the sweep: ${JSON.stringify(best.ranking)}`);
  console.error(
    `two-fold held-out estimate: recall@10 ${best.heldOut.recallAt10.toFixed(3)}, ` +
      `first ${best.heldOut.firstCorrect.toFixed(3)}`,
  );
  const outcomes = await runQueries(context, queries, { ...ranking, ...best.ranking }, k);
  print(scoreQueries(queries, outcomes), options.json);
  return 0;
}

function readQueries(file: string): EvalQuery[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code}`);
  }
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line, i) => {
      const query = JSON.parse(line) as EvalQuery;
      if (typeof query.query !== 'string' || typeof query.expect_answer_contains !== 'string') {
        throw new UsageError(`${file}:${i + 1}: needs "query" and "expect_answer_contains"`);
      }
      return query;
    });
}

/** Each query whose answer is not in the first ten, with what came first instead. */
function printMisses(queries: EvalQuery[], outcomes: QueryOutcome[]): void {
  queries.forEach((query, i) => {
    const expected = query.expect_answer_contains.toLowerCase();
    const rank = outcomes[i].facts.findIndex((f) => f.answer.toLowerCase().includes(expected));
    if (rank >= 0 && rank < 10) return;
    const first = outcomes[i].facts.slice(0, 3).map((f) => `${f.true_by} ${f.answer}`);
    console.error(JSON.stringify({ query: query.query, note: query.note, rank, first }));
  });
}

function print(metrics: Record<string, Metrics>, json?: boolean): void {
  if (json) {
    console.log(JSON.stringify(metrics, null, 2));
    return;
  }
  const columns = [
    'queries',
    'recall@1',
    'recall@5',
    'recall@10',
    'mrr',
    'first',
    'outside',
  ] as const;
  console.log(['kind'.padEnd(34), ...columns.map((c) => c.padStart(10))].join(''));
  for (const [kind, m] of Object.entries(metrics)) {
    const cells = [
      m.queries,
      m.recallAt1,
      m.recallAt5,
      m.recallAt10,
      m.mrr,
      m.firstCorrect,
      m.outsideWindow,
    ];
    console.log(
      [
        kind.padEnd(34),
        ...cells.map((c) =>
          (c === null ? '-' : Number.isInteger(c) ? String(c) : c.toFixed(3)).padStart(10),
        ),
      ].join(''),
    );
  }
}
