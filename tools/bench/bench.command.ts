import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { BenchRequest, benchRequests, CorpusGrower, readJsonLines, writeCorpus } from './corpus';
import type { IngestResult, IngestSpec } from './ingest';
import type { LoadResult, LoadSpec } from './load';
import { directorySize, machine, peakRss } from './machine';
import { EngineReport, printTables } from './report';
import { firstLine, jsonChild, ready, stop, writeSpec } from './children';
import type { PeerLoad, PeerSpec } from './peer';
import type { BenchOptions } from '../../src/cli/bench.command';
import { buildConfig, Config, PROJECT_ROOT } from '../../src/config/config';
import { createEmbedder } from '../../src/embeddings/embeddings.module';
import { EVAL_K, EvalQuery, Metrics, QueryOutcome, scoreQueries } from '../../src/facts/evaluation';
import { FactDto } from '../../src/facts/fact.dto';
import { VectorFile } from '../../src/facts/vector-file';
import { UsageError } from '../../src/cli/context';
import { embedFile } from '../../src/cli/embed.command';
import { freePort } from '../../src/common/free-port';

/** This folder of the build (dist/tools/bench): the ingest, load and peer scripts. */
const BENCH = __dirname;
/**
 * Names the grown corpora and the stores built from them: corpora of the same size and
 * seed grown before the distractors were made disjoint from the eval names (names
 * swapped from the whole corpus) are not reused.
 */
const GROWTH = 'disjoint2';
const WARMUP = 100;

/**
 * `bench --facts N`: grows a corpus of N facts (cached with its vectors), ingests it,
 * serves it, and drives the real server over HTTP from a separate load process; then
 * the same for the peer engine. Prints a table and writes JSON.
 */
export async function benchCommand(options: BenchOptions): Promise<number> {
  const count = parseCount(options.facts);
  if (options.embedded === false && !options.databaseUrl) {
    throw new UsageError('--no-embedded needs --database-url');
  }
  const requests = positive(options.requests, '--requests');
  const seed = positive(options.seed, '--seed');
  const levels = options.concurrency.split(',').map((c) => positive(c.trim(), '--concurrency'));
  const queries = readJsonLines<EvalQuery>(options.queries);
  const cache = resolve(options.cache);
  mkdirSync(cache, { recursive: true });
  const say = (line: string) => console.error(`bench: ${line}`);
  const config = buildConfig(process.env);

  const corpus = join(cache, `corpus-${count}-seed${seed}-${GROWTH}.jsonl`);
  if (!existsSync(corpus)) {
    say(`growing ${count} facts from ${config.seedFile}, names disjoint from ${options.queries}`);
    const base = readJsonLines<FactDto>(config.seedFile);
    const grower = new CorpusGrower(base, seed, queries);
    say(
      `${grower.pool.length} names to swap in; ${grower.exclude.names.length} eval names and ` +
        `${grower.exclude.answers.length} expected answers kept out`,
    );
    await writeCorpus(grower, count, `${corpus}.partial`);
    renameSync(`${corpus}.partial`, corpus);
  }
  const embedding = await cachedVectors(config, corpus, say);
  const facts = readJsonLines<FactDto>(corpus);
  const load = benchRequests(queries, facts, WARMUP + requests * levels.length, seed + 1);
  const batches = levels.map((_, i) =>
    [
      ...load.slice(0, WARMUP),
      ...load.slice(WARMUP + i * requests, WARMUP + (i + 1) * requests),
    ].map((request) => JSON.stringify(request)),
  );
  // Scored as `eval` scores them: one request per query, k 10 (EVAL_K), default order.
  const qualityBodies = queries.map((q) =>
    JSON.stringify({ query: q.query, true_by_max: q.true_by_max, k: EVAL_K }),
  );
  const runs = { queries, qualityBodies, batches, levels };

  const targets = [{ engine: 'freshfacts', databaseUrl: '' }];
  if (options.embedded === false) targets.pop();
  if (options.databaseUrl) {
    targets.push({ engine: 'freshfacts-postgres', databaseUrl: options.databaseUrl });
  }
  const served: Served[] = [];
  let engines: EngineReport[];
  try {
    for (const target of targets) {
      served.push(await serveFreshfacts(target, corpus, count, cache, say, options.keep));
    }
    engines = await measureInterleaved(served, runs, say);
  } finally {
    for (const server of served) await server.stop();
  }
  if (options.peer) engines.push(await benchPeer(corpus, cache, runs, say));

  const report = {
    command:
      `bin/freshfacts bench --facts ${options.facts}` +
      (options.databaseUrl ? ' --database-url URL' : ''),
    date: new Date().toISOString(),
    machine: machine(),
    corpus: { path: corpus, facts: count, seed, growth: GROWTH },
    quality: { queries: options.queries, k: EVAL_K },
    embedder: embedding,
    requests: { perLevel: requests, warmup: WARMUP, mix: describeMix(load.slice(WARMUP)) },
    engines,
  };
  const out = resolve(options.out ?? join(PROJECT_ROOT, 'bench', 'results', `bench-${count}.json`));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  if (options.json) console.log(JSON.stringify(report, null, 2));
  else printTables(engines, levels, queries.length);
  say(`wrote ${out}`);
  return 0;
}

interface Runs {
  queries: EvalQuery[];
  qualityBodies: string[];
  batches: string[][];
  levels: number[];
}

/** The corpus's vectors from the cache beside it, computed (and timed) on the first run. */
async function cachedVectors(config: Config, corpus: string, say: (line: string) => void) {
  const embedder = createEmbedder(config);
  const timing = `${corpus}.embedding.json`;
  if (!existsSync(timing) || !VectorFile.load(corpus, embedder.model)) {
    say(`embedding the corpus with ${embedder.model} (cached for later runs)`);
    const made = await embedFile(corpus, embedder);
    writeFileSync(timing, JSON.stringify({ model: embedder.model, ...made }));
  }
  const made = JSON.parse(readFileSync(timing, 'utf8')) as { questions: number; seconds: number };
  return {
    model: embedder.model,
    questions: made.questions,
    seconds: made.seconds,
    perSecond: made.questions / made.seconds,
  };
}

interface Served {
  engine: string;
  url: string;
  key: string;
  build: EngineReport['build'];
  stop(): Promise<void>;
}

/**
 * Ingests the corpus into a store of freshfacts (the embedded one in the cache, or the
 * PostgreSQL database at `databaseUrl`) and starts `serve` on it.
 */
async function serveFreshfacts(
  target: { engine: string; databaseUrl: string },
  corpus: string,
  count: number,
  cache: string,
  say: (line: string) => void,
  keep = false,
): Promise<Served> {
  const { engine, databaseUrl } = target;
  const dataDir = join(cache, `${engine}-${count}-${GROWTH}`);
  // A kept store is served again only if its build finished (the record is written last).
  const built = join(cache, `${engine}-${count}-${GROWTH}.ingest.json`);
  const reuse = keep && existsSync(built) && (databaseUrl !== '' || existsSync(dataDir));
  if (!reuse) {
    rmSync(built, { force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
  const env = {
    ...process.env,
    FRESHFACTS_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    FRESHFACTS_SEED_FILE: '',
    FRESHFACTS_LOG_LEVEL: 'error',
    FRESHFACTS_SOURCES_WORKER: 'off',
  };
  const cleanup = () => {
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    let ingest: IngestResult;
    if (reuse) {
      ingest = JSON.parse(readFileSync(built, 'utf8')) as IngestResult;
      say(`${engine}: serving the kept store (build figures from when it was made)`);
    } else {
      say(`${engine}: ingesting ${count} facts into ${databaseUrl ? 'the database' : dataDir}`);
      const spec: IngestSpec = { corpus, email: 'bench@freshfacts.invalid' };
      ingest = await jsonChild<IngestResult>(join(BENCH, 'ingest.js'), spec, env);
      if (keep) writeFileSync(built, JSON.stringify(ingest));
    }
    if (ingest.added !== count)
      throw new Error(
        `${engine}: ingest stored ${ingest.added} of ${count} facts (${ingest.rejected} rejected); ` +
          `a database must be empty before the bench loads it`,
      );
    const diskBytes = databaseUrl ? ingest.databaseBytes : directorySize(dataDir);
    const port = await freePort();
    const started = performance.now();
    const server = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'freshfacts'), 'serve'], {
      env: { ...env, PORT: String(port), FRESHFACTS_HOST: '127.0.0.1' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    try {
      await ready(`http://127.0.0.1:${port}/readyz`, server);
    } catch (err) {
      await stop(server);
      throw err;
    }
    const openSeconds = (performance.now() - started) / 1000;
    say(`${engine}: serving on ${port} after ${openSeconds.toFixed(1)} s`);
    const build: EngineReport['build'] = {
      facts: count,
      ingestSeconds: ingest.seconds,
      factsPerSecond: count / ingest.seconds,
      indexSeconds: ingest.indexSeconds,
      diskBytes,
      openSeconds,
      peakRssBytes: { ingest: ingest.maxRssBytes, serve: null },
    };
    return {
      engine,
      url: `http://127.0.0.1:${port}/v1/search`,
      key: ingest.key,
      build,
      async stop() {
        build.peakRssBytes.serve = peakRss(server.pid!);
        await stop(server);
        cleanup();
      },
    };
  } catch (err) {
    cleanup();
    throw err;
  }
}

/**
 * Quality, then each concurrency level for every server in turn, so that the stores
 * are compared under the same load of the machine.
 */
async function measureInterleaved(
  served: Served[],
  runs: Runs,
  say: (line: string) => void,
): Promise<EngineReport[]> {
  const reports = served.map((s) => ({
    engine: s.engine,
    build: s.build,
    load: [] as LoadResult[],
  }));
  const qualities: Metrics[] = [];
  for (const s of served) {
    qualities.push(await quality(s.url, s.key, runs));
    say(`${s.engine}: ${describeQuality(qualities[qualities.length - 1])}`);
  }
  for (const [i, concurrency] of runs.levels.entries()) {
    for (const [j, s] of served.entries()) {
      say(`${s.engine}: ${runs.batches[i].length - WARMUP} requests at concurrency ${concurrency}`);
      reports[j].load.push(
        await loadChild(
          { url: s.url, key: s.key, bodies: runs.batches[i], concurrency, warmup: WARMUP },
          false,
        ),
      );
    }
  }
  return reports.map((report, j) => ({ ...report, quality: qualities[j] }));
}

async function benchPeer(
  corpus: string,
  cache: string,
  runs: Runs,
  say: (line: string) => void,
): Promise<EngineReport> {
  const dir = join(cache, `lancedb-${runs.qualityBodies.length}-${Date.now()}`);
  const spec: PeerSpec = { dir, corpus, port: 0 };
  const specFile = writeSpec(cache, 'peer', spec);
  say('peer: loading the same corpus and vectors into LanceDB');
  const peer = spawn(process.execPath, [join(BENCH, 'peer.js'), specFile], {
    // LanceDB's Rust side warns on every hybrid query about a coming change of its
    // output columns; errors still show.
    env: { ...process.env, LANCEDB_LOG: 'error', RUST_LOG: 'error' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const line = await firstLine(peer);
    const loaded = JSON.parse(line) as PeerLoad & { port: number };
    say(`peer: ${loaded.engine} serving on ${loaded.port}; measuring`);
    const measured = await measure(`http://127.0.0.1:${loaded.port}/v1/search`, undefined, runs);
    say(`peer: ${describeQuality(measured.quality)}`);
    return {
      engine: loaded.engine,
      build: {
        facts: loaded.facts,
        ingestSeconds: loaded.loadSeconds,
        factsPerSecond: loaded.facts / loaded.loadSeconds,
        indexSeconds: loaded.indexSeconds,
        diskBytes: loaded.diskBytes,
        openSeconds: loaded.openSeconds,
        // One process both loads and serves; its peak covers both.
        peakRssBytes: { ingest: null, serve: peakRss(peer.pid!) },
      },
      ...measured,
    };
  } finally {
    await stop(peer);
    rmSync(dir, { recursive: true, force: true });
    rmSync(specFile, { force: true });
  }
}

/** Quality on the dev queries, then latency at each concurrency, from a load process. */
async function measure(url: string, key: string | undefined, runs: Runs) {
  const load: LoadResult[] = [];
  const metrics = await quality(url, key, runs);
  for (const [i, concurrency] of runs.levels.entries()) {
    load.push(
      await loadChild({ url, key, bodies: runs.batches[i], concurrency, warmup: WARMUP }, false),
    );
  }
  return { quality: metrics, load };
}

async function quality(url: string, key: string | undefined, runs: Runs): Promise<Metrics> {
  const answered = await loadChild(
    { url, key, bodies: runs.qualityBodies, concurrency: 1, warmup: 0 },
    true,
  );
  const outcomes = (answered.bodies as { results: QueryOutcome['facts'] }[]).map((body) => ({
    facts: body.results,
  }));
  return scoreQueries(runs.queries, outcomes).all;
}

function describeQuality(q: Metrics): string {
  const first = q.firstCorrect === null ? '-' : q.firstCorrect.toFixed(3);
  return `dev queries at k ${EVAL_K}: recall@10 ${q.recallAt10.toFixed(3)}, first ${first}`;
}

async function loadChild(spec: LoadSpec, bodies: boolean): Promise<LoadResult> {
  return jsonChild<LoadResult>(
    join(BENCH, 'load.js'),
    spec,
    process.env,
    bodies ? ['--bodies'] : [],
  );
}

/** `10k`, `100k`, `1M` or a plain number. */
export function parseCount(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(text.trim());
  const value = match ? Number(match[1]) * ({ k: 1e3, m: 1e6 }[match[2].toLowerCase()] ?? 1) : NaN;
  if (!Number.isInteger(value) || value < 100 || value > 10_000_000)
    throw new UsageError(
      `--facts must be a whole number from 100 to 10M, such as 10k or 1M (got "${text}")`,
    );
  return value;
}

function positive(text: string, name: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new UsageError(`${name} must be a positive integer (got "${text}")`);
  return value;
}

function describeMix(requests: BenchRequest[]) {
  const share = (test: (r: BenchRequest) => boolean) =>
    Number((requests.filter(test).length / requests.length).toFixed(2));
  return {
    noWindow: share((r) => !r.true_by_max),
    upperBoundOnly: share((r) => !!r.true_by_max && !r.true_by_min),
    window: share((r) => !!r.true_by_min),
    timeline: share((r) => r.timeline),
    k10: share((r) => r.k === 10),
    k20: share((r) => r.k === 20),
    k100: share((r) => r.k === 100),
  };
}
