/** Turns sentences into unit-length vectors. Implementations are swappable by settings. */
export interface Embedder {
  /** Identifies the model, so stored vectors are only reused with the model that made them. */
  readonly model: string;
  /** Vector length; the store's `facts.embedding` column follows the configured model. */
  readonly dimensions: number;
  /** Whether a query can be embedded now, without first loading a model (readiness). */
  readonly ready: boolean;
  embed(texts: string[]): Promise<Float32Array[]>;
}

export const EMBEDDER = Symbol('Embedder');

export class EmbeddingError extends Error {}

/** Scales `vector` to unit length in place and returns it. */
export function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum) || 1;
  for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}
