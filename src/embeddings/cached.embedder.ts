import { Embedder } from './embedder';

/**
 * Remembers the vectors of recent texts: agents repeat questions, and an encoder
 * call costs tens of milliseconds where a lookup costs nothing.
 */
export class CachedEmbedder implements Embedder {
  private readonly cache = new Map<string, Float32Array>();

  constructor(
    private readonly inner: Embedder,
    private readonly capacity = 2000,
  ) {}

  get model(): string {
    return this.inner.model;
  }

  get dimensions(): number {
    return this.inner.dimensions;
  }

  get ready(): boolean {
    return this.inner.ready;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const missing = [...new Set(texts.filter((text) => !this.cache.has(text)))];
    if (missing.length > 0) {
      const vectors = await this.inner.embed(missing);
      missing.forEach((text, i) => this.remember(text, vectors[i]));
    }
    return texts.map((text) => this.touch(text));
  }

  private touch(text: string): Float32Array {
    const vector = this.cache.get(text)!;
    this.cache.delete(text);
    this.cache.set(text, vector);
    return vector;
  }

  private remember(text: string, vector: Float32Array): void {
    this.cache.set(text, vector);
    if (this.cache.size > this.capacity) {
      this.cache.delete(this.cache.keys().next().value!);
    }
  }
}
