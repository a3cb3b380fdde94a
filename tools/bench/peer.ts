import { readFileSync } from 'node:fs';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { Table } from '@lancedb/lancedb';
import { buildConfig } from '../../src/config/config';
import { CachedEmbedder } from '../../src/embeddings/cached.embedder';
import { createEmbedder } from '../../src/embeddings/embeddings.module';
import { Embedder } from '../../src/embeddings/embedder';
import { FactDto } from '../../src/facts/fact.dto';
import { VectorFile } from '../../src/facts/vector-file';
import { directorySize } from './machine';
import { readJsonLines, BenchRequest } from './corpus';

/**
 * The peer: the same corpus, with the same vectors and the same query encoder, in
 * LanceDB (`@lancedb/lancedb`), an embedded engine with hybrid BM25 + vector search
 * that a user might choose instead (bench/peer-choice.md says why this one). It is
 * served over HTTP by this process, so the one load process measures both engines
 * the same way: same bodies, same loopback, same JSON out.
 */
export interface PeerSpec {
  dir: string;
  corpus: string;
  port: number;
}

export interface PeerLoad {
  engine: string;
  facts: number;
  loadSeconds: number;
  indexSeconds: number;
  diskBytes: number;
  openSeconds: number;
}

const DAY = 86_400_000;

async function build(spec: PeerSpec, embedder: Embedder) {
  const lancedb = await import('@lancedb/lancedb');
  const arrow = await import('apache-arrow');
  const facts = readJsonLines<FactDto>(spec.corpus);
  const vectors = VectorFile.load(spec.corpus, embedder.model);
  const missing = facts.filter((fact) => !vectors?.get(fact.question.trim()));
  // The bench writes the vector file before it starts the peer; without it the two
  // engines would not be comparing the same vectors.
  if (!vectors || missing.length > 0)
    throw new Error(`${spec.corpus}: ${missing.length} facts have no cached vector`);
  const started = performance.now();
  const db = await lancedb.connect(spec.dir);
  const schema = new arrow.Schema([
    new arrow.Field('id', new arrow.Int32(), false),
    new arrow.Field('question', new arrow.Utf8(), false),
    new arrow.Field('answer', new arrow.Utf8(), false),
    new arrow.Field('text', new arrow.Utf8(), false),
    new arrow.Field('true_by', new arrow.Utf8(), true),
    new arrow.Field('day', new arrow.Int32(), true),
    new arrow.Field('sources', new arrow.Utf8(), false),
    new arrow.Field(
      'vector',
      new arrow.FixedSizeList(
        embedder.dimensions,
        new arrow.Field('item', new arrow.Float32(), true),
      ),
      false,
    ),
  ]);
  const table = await db.createEmptyTable('facts', schema, { mode: 'overwrite' });
  const BATCH = 20_000;
  for (let start = 0; start < facts.length; start += BATCH) {
    const rows = facts.slice(start, start + BATCH).map((fact, i) => ({
      id: start + i,
      question: fact.question,
      answer: fact.answer,
      text: `${fact.question} ${fact.answer}`,
      true_by: fact.true_by,
      day: fact.true_by ? Math.floor(Date.parse(`${fact.true_by}T00:00:00Z`) / DAY) : null,
      sources: JSON.stringify(fact.sources),
      vector: Array.from(vectors.get(fact.question.trim())!),
    }));
    await table.add(rows);
  }
  const loadSeconds = (performance.now() - started) / 1000;
  const indexed = performance.now();
  // IVF_PQ needs enough rows to train its partitions; below that LanceDB scans flat.
  if (facts.length >= 5_000) {
    await table.createIndex('vector', {
      config: lancedb.Index.ivfPq({ distanceType: 'cosine' }),
    });
  }
  await table.createIndex('text', { config: lancedb.Index.fts() });
  await table.createIndex('day', { config: lancedb.Index.btree() });
  const indexSeconds = (performance.now() - indexed) / 1000;
  table.close();
  db.close();
  return { facts: facts.length, loadSeconds, indexSeconds };
}

async function search(
  table: Table,
  embedder: Embedder,
  rrf: unknown,
  request: BenchRequest,
): Promise<FactDto[]> {
  const [vector] = await embedder.embed([request.query]);
  const k = Math.min(100, Math.max(10, request.k ?? 20));
  const bounds: string[] = [];
  const day = (text: string) => Math.floor(Date.parse(text.slice(0, 10) + 'T00:00:00Z') / DAY);
  if (request.true_by_min) bounds.push(`day >= ${day(request.true_by_min)}`);
  if (request.true_by_max) bounds.push(`day <= ${day(request.true_by_max)}`);
  let query = table
    .query()
    .nearestTo(Array.from(vector))
    .distanceType('cosine')
    .fullTextSearch(request.query, { columns: ['text'] })
    .rerank(rrf as never)
    .select(['question', 'answer', 'true_by', 'sources'])
    .limit(k);
  if (bounds.length) query = query.where(bounds.join(' AND '));
  const rows = (await query.toArray()) as {
    question: string;
    answer: string;
    true_by: string | null;
    sources: string;
  }[];
  const facts = rows.map((row) => ({
    question: row.question,
    answer: row.answer,
    true_by: row.true_by,
    sources: JSON.parse(row.sources) as string[],
  }));
  // The same ordering contract as freshfacts: the relevant set, newest first.
  if (request.timeline !== false)
    facts.sort((a, b) => (b.true_by ?? '').localeCompare(a.true_by ?? ''));
  return facts;
}

/** Builds the peer's table, re-opens it, then answers POST /v1/search until killed. */
async function main(): Promise<void> {
  const spec = JSON.parse(readFileSync(process.argv[2], 'utf8')) as PeerSpec;
  const embedder = new CachedEmbedder(createEmbedder(buildConfig(process.env)));
  const built = await build(spec, embedder);
  const lancedb = await import('@lancedb/lancedb');
  const opened = performance.now();
  const db = await lancedb.connect(spec.dir);
  const table = await db.openTable('facts');
  const rrf = await lancedb.rerankers.RRFReranker.create(60);
  await search(table, embedder, rrf, { query: 'warm up', k: 10, timeline: false });
  const load: PeerLoad = {
    engine: `lancedb ${lancedbVersion()}`,
    ...built,
    diskBytes: directorySize(spec.dir),
    openSeconds: (performance.now() - opened) / 1000,
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.url !== '/v1/search') return reply(404, {});
      search(table, embedder, rrf, JSON.parse(Buffer.concat(chunks).toString()) as BenchRequest)
        .then((results) => reply(200, { results }))
        .catch((err: unknown) => reply(500, { detail: String(err) }));
    });
  });
  server.listen(spec.port, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(JSON.stringify({ ...load, port }) + '\n');
  });
}

function lancedbVersion(): string {
  // The package's exports map hides package.json; its entry point sits in dist/.
  const entry = require.resolve('@lancedb/lancedb');
  const manifest = join(dirname(entry), '..', 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`peer: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
