import { Embedder, EmbeddingError, normalise } from './embedder';

export interface OpenAiEmbedderOptions {
  url: string;
  model: string;
  apiKey?: string;
  fetch?: typeof fetch;
}

/** Any OpenAI-compatible `POST {url}/embeddings` API, for operators who host their own model. */
export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  /** The API must answer with vectors of this length (OpenAI's models take a `dimensions` option). */
  readonly dimensions = OPENAI_DIMENSIONS;
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

/** Vector length asked of the API (OpenAI's models take a `dimensions` option). */
const OPENAI_DIMENSIONS = 512;

function parse(body: unknown, expected: number, dimensions = OPENAI_DIMENSIONS): Float32Array[] {
  const data = (body as { data?: { index?: number; embedding?: unknown }[] }).data;
  if (!Array.isArray(data) || data.length !== expected) {
    throw new EmbeddingError(
      `embeddings API returned ${Array.isArray(data) ? data.length : 'no'} vectors for ${expected}`,
    );
  }
  const out = new Array<Float32Array>(expected);
  data.forEach((item, position) => {
    const vector = item.embedding;
    if (!Array.isArray(vector) || vector.length !== dimensions) {
      throw new EmbeddingError(`embeddings API vectors must have ${dimensions} dimensions`);
    }
    out[item.index ?? position] = normalise(Float32Array.from(vector));
  });
  return out;
}
