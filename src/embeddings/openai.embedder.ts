import { EMBEDDING_DIMENSIONS, Embedder, EmbeddingError, normalise } from './embedder';

export interface OpenAiEmbedderOptions {
  url: string;
  model: string;
  apiKey?: string;
  fetch?: typeof fetch;
}

/** Any OpenAI-compatible `POST {url}/embeddings` API, for operators who host their own model. */
export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  /** A remote API has nothing to load; its outages show as 503 on the calls themselves. */
  readonly ready = true;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.model = `openai:${options.model}`;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const doFetch = this.options.fetch ?? fetch;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const url = `${this.options.url.replace(/\/+$/, '')}/embeddings`;
    const response = await doFetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: this.options.model, input: texts }),
      signal: AbortSignal.timeout(30_000),
    }).catch((err: Error) => {
      throw new EmbeddingError(`embeddings API unreachable: ${err.message}`);
    });
    if (!response.ok) {
      throw new EmbeddingError(`embeddings API answered ${response.status}`);
    }
    return parse(await response.json(), texts.length);
  }
}

function parse(body: unknown, expected: number): Float32Array[] {
  const data = (body as { data?: { index?: number; embedding?: unknown }[] }).data;
  if (!Array.isArray(data) || data.length !== expected) {
    throw new EmbeddingError(
      `embeddings API returned ${Array.isArray(data) ? data.length : 'no'} vectors for ${expected}`,
    );
  }
  const out = new Array<Float32Array>(expected);
  data.forEach((item, position) => {
    const vector = item.embedding;
    if (!Array.isArray(vector) || vector.length !== EMBEDDING_DIMENSIONS) {
      throw new EmbeddingError(
        `embeddings API vectors must have ${EMBEDDING_DIMENSIONS} dimensions`,
      );
    }
    out[item.index ?? position] = normalise(Float32Array.from(vector));
  });
  return out;
}
