import 'reflect-metadata';
import { Command, CommanderError } from 'commander';
import { InvalidEmailError } from '../accounts/email';
import { KeyNotFoundError } from '../auth/api-keys.service';
import { ConfigError } from '../config/config';
import { DatabaseSetupError } from '../database/data-source';
import { isDatabaseUnavailable } from '../database/errors';
import { IngestFileError } from '../facts/fact-record';
import { UsageError } from './context';
import { DomainError, ProblemError } from '../common/problem';
import { AccountNotFoundError, UnknownPlanError } from '../accounts/accounts.service';
import { setPlan } from './accounts.command';
import { BenchOptions, benchCommand } from './bench.command';
import { migrateCommand } from './db.command';
import { embedCommand } from './embed.command';
import { EvalOptions, evalCommand } from './eval.command';
import { reembedCommand } from './reembed.command';
import { ingestCommand } from './ingest.command';
import { createKey, listKeys, revokeKey } from './keys.command';
import { serveCommand } from './serve.command';
import { McpOptions, mcpCommand } from './mcp.command';
import {
  explainSearch,
  ExplainOptions,
  findFacts,
  restoreFact,
  retractFact,
  showFact,
} from './facts.command';
import {
  addSource,
  AddSourceOptions,
  listSources,
  removeSource,
  runSources,
} from './sources.command';
import { SourceInputError } from '../sources/source-input';
import { SourceExistsError } from '../sources/sources.repository';
import { StoreModelError } from '../facts/maintenance.repository';

// Errors a user can act on: printed as one line, exit status 2.
const USER_ERRORS = [
  UsageError,
  ProblemError,
  DomainError,
  ConfigError,
  DatabaseSetupError,
  IngestFileError,
  KeyNotFoundError,
  InvalidEmailError,
  UnknownPlanError,
  AccountNotFoundError,
  SourceInputError,
  SourceExistsError,
  StoreModelError,
];

function program(): Command {
  const cli = new Command('freshfacts')
    .description('Dated, sourced facts for LLM agents.')
    .exitOverride()
    .showHelpAfterError();
  for (const add of [serving, loading, measuring, sourcing, factsKept, accounting]) add(cli);
  return cli;
}

/** serve and mcp: the service itself. */
function serving(cli: Command): void {
  cli
    .command('serve')
    .description('serve the HTTP API (loads the shipped corpus into an empty database)')
    .option('--host <host>', 'address to bind (FRESHFACTS_HOST, default 127.0.0.1)')
    .option('--port <port>', 'port to listen on (PORT, default 8080)')
    .option('--tls-cert <file>', 'PEM certificate: serve HTTPS (with --tls-key)')
    .option('--tls-key <file>', 'PEM private key of --tls-cert')
    .action(serveCommand);
  cli
    .command('mcp')
    .description('the fact tools over MCP on stdio, for desktop agents (see the README)')
    .option('--url <url>', 'bridge to the freshfacts service at this address')
    .option('--key <key>', 'its API key (default: FRESHFACTS_API_KEY)')
    .option('--embedded', 'serve the tools from the local data folder, without HTTP or key')
    .action((options: McpOptions) => mcpCommand(options));
}

/** What fills the store: ingest, embed, reembed. */
function loading(cli: Command): void {
  cli
    .command('ingest <file>')
    .description('load facts from a JSON Lines file; bad lines are listed and skipped')
    .option('--strict', 'refuse the whole file if any line is bad')
    .action(async (file: string, options: { strict?: boolean }) =>
      exit(await ingestCommand(file, options)),
    );
  cli
    .command('embed <file>')
    .description('precompute question vectors of a JSON Lines file into FILE.vectors')
    .action(async (file: string) => exit(await embedCommand(file)));
  cli
    .command('reembed')
    .description('re-embed every stored fact with the configured encoder (after changing it)')
    .action(async () => exit(await reembedCommand()));
}

/** eval and bench: quality and speed. */
function measuring(cli: Command): void {
  cli
    .command('eval <queries>')
    .description('retrieval quality on a queries file (see corpus/README.md)')
    .option('--facts <file>', 'load these facts into a fresh temporary store first')
    .option('--mode <mode>', 'fused, lexical or semantic', 'fused')
    .option('--k <n>', 'facts asked for per query (recall@10 is then within the first ten)', '10')
    .option('--sweep', 'grid-search the ranking parameters and print the best')
    .option('--json', 'print JSON instead of a table')
    .option('--misses', 'also list each query whose answer is not in the first ten')
    .action(async (queries: string, options: EvalOptions) =>
      exit(await evalCommand(queries, options)),
    );
  cli
    .command('bench')
    .description('speed and quality at N facts, over HTTP, against a peer engine (bench/README.md)')
    .requiredOption('--facts <n>', 'corpus size: 10k, 100k, 1M or a number')
    .option('--requests <n>', 'timed requests at each concurrency', '1000')
    .option('--concurrency <list>', 'concurrent clients, comma-separated', '1,16')
    .option('--seed <n>', 'seed of the grown corpus and the request mix', '1')
    .option(
      '--queries <file>',
      'dev queries: quality, and part of the load',
      'corpus/queries-dev.jsonl',
    )
    .option('--no-peer', 'leave out the peer engine (LanceDB)')
    .option(
      '--database-url <url>',
      'also serve the corpus from this PostgreSQL database (empty, or kept with --keep), measured interleaved with the embedded store',
    )
    .option('--no-embedded', 'with --database-url: leave out the embedded store')
    .option(
      '--keep',
      "keep freshfacts' built store in the cache and serve it again next time (no new ingest)",
    )
    .option('--cache <dir>', 'grown corpora, their vectors and scratch stores', 'bench/.cache')
    .option('--out <file>', 'where the JSON goes (default bench/results/bench-N.json)')
    .option('--json', 'print the JSON instead of tables')
    .action(async (options: BenchOptions) => exit(await benchCommand(options)));
}

/** sources: the upstreams that keep facts current. */
function sourcing(cli: Command): void {
  const sources = cli.command('sources').description('upstream sources that keep facts current');
  sources
    .command('add [url]')
    .description('register a source (or a preset list of them); `sources run` fetches it when due')
    .option(
      '--kind <kind>',
      'feed (RSS/Atom), page (an article), wikidata (entity JSON or dump) or sparql (a query file)',
    )
    .option('--every <interval>', 'how often to fetch it: 15m, 6h, 1d (default 1h)')
    .option('--preset <name>', 'instead of a URL: wikidata (SPARQL queries) or news (feeds)')
    .action(async (url: string | undefined, options: AddSourceOptions) =>
      exit(await addSource(url, options)),
    );
  sources
    .command('list')
    .description('sources with their last run, error and counts')
    .action(async () => exit(await listSources()));
  sources
    .command('remove <source>')
    .description('remove a source, by id or URL (its facts stay)')
    .action(async (ref: string) => exit(await removeSource(ref)));
  sources
    .command('run')
    .description('fetch due sources and ingest their facts; polls until interrupted')
    .option('--once', 'one pass over the due sources, then exit (1 if any failed)')
    .option('--all', 'with --once: every source, due or not')
    .action(async (options: { once?: boolean; all?: boolean }) => exit(await runSources(options)));
}

/** facts: stored facts, looked up, taken back, explained. */
function factsKept(cli: Command): void {
  const facts = cli.command('facts').description('stored facts');
  facts
    .command('show <id>')
    .description('a fact with its sources and where and when it was ingested')
    .action(async (id: string) => exit(await showFact(id)));
  facts
    .command('retract <id>')
    .description('take a fact back: never returned again, and not revived by ingest')
    .requiredOption('--reason <text>', 'why (kept with the fact and in the audit trail)')
    .action(async (id: string, options: { reason: string }) =>
      exit(await retractFact(id, options)),
    );
  facts
    .command('restore <id>')
    .description('put a retracted fact back')
    .action(async (id: string) => exit(await restoreFact(id)));
  facts
    .command('find <words>')
    .description('ids of facts whose question contains these words')
    .option('--limit <n>', 'at most this many', '20')
    .action(async (words: string, options: { limit?: string }) =>
      exit(await findFacts(words, options)),
    );
  facts
    .command('explain <question>')
    .description("the database's plan of a search, with timings (EXPLAIN ANALYZE)")
    .option('--true-by-min <date>', 'lower date bound')
    .option('--true-by-max <date>', 'upper date bound')
    .option('--k <n>', 'facts asked for', '20')
    .action(async (question: string, options: ExplainOptions) =>
      exit(await explainSearch(question, options)),
    );
}

/** db, accounts and keys: the operator's housekeeping. */
function accounting(cli: Command): void {
  cli
    .command('db')
    .description('the database')
    .command('migrate')
    .description('apply pending schema migrations (serve does it too), then exit')
    .action(async () => exit(await migrateCommand()));
  cli
    .command('accounts')
    .description('manage accounts')
    .command('set-plan <email> <plan>')
    .description('move an account to the free or the paid plan')
    .action(async (email: string, plan: string) => exit(await setPlan(email, plan)));
  const keys = cli.command('keys').description('manage API keys');
  keys
    .command('create')
    .requiredOption('--email <email>', 'the account that owns the key (created if new)')
    .option('--name <name>', 'a label for the key')
    .action(async (options: { email: string; name?: string }) => exit(await createKey(options)));
  keys
    .command('revoke <key>')
    .description('revoke a key, given whole or by its displayed prefix')
    .action(async (key: string) => exit(await revokeKey(key)));
  keys
    .command('list')
    .requiredOption('--email <email>')
    .action(async (options: { email: string }) => exit(await listKeys(options)));
}

function exit(code: number): void {
  process.exitCode = code;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await program().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    if (USER_ERRORS.some((type) => err instanceof type)) {
      console.error(`freshfacts: ${(err as Error).message}`);
      process.exitCode = 2;
      return;
    }
    if (isDatabaseUnavailable(err)) {
      console.error(`freshfacts: cannot reach the database (${(err as Error).message})`);
      process.exitCode = 2;
      return;
    }
    throw err;
  }
}

if (require.main === module) {
  void main(process.argv);
}
