import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { CachedEmbedder } from '../../src/embeddings/cached.embedder';
import { Embedder, EmbeddingError } from '../../src/embeddings/embedder';
import { OpenAiEmbedder } from '../../src/embeddings/openai.embedder';
import { StaticEmbedder } from '../../src/embeddings/static.embedder';
import { UseLiteEmbedder } from '../../src/embeddings/use-lite.embedder';

function dot(a: Float32Array, b: Float32Array): number {
  return a.reduce((sum, x, i) => sum + x * b[i], 0);
}

describe('the in-process encoder (Universal Sentence Encoder lite, from the npm package)', () => {
  const encoder = new UseLiteEmbedder();

  it('gives unit vectors that put paraphrases closer than unrelated questions', async () => {
    const [a, b, c] = await encoder.embed([
      'Who is the head coach of the football club?',
      'Which manager leads the soccer team?',
      'What is the boiling point of water at sea level?',
    ]);
    expect(a).toHaveLength(512);
    expect(dot(a, a)).toBeCloseTo(1, 4);
    expect(dot(a, b)).toBeGreaterThan(dot(a, c) + 0.2);
  });

  it('keeps outputs aligned with inputs across batches of different lengths', async () => {
    const texts = Array.from({ length: 19 }, (_, i) => `question number ${i} ${'word '.repeat(i)}`);
    const together = await encoder.embed(texts);
    const [alone] = await encoder.embed([texts[7]]);
    expect(dot(together[7], alone)).toBeCloseTo(1, 3);
  });

  it('refuses empty text instead of misaligning the batch', async () => {
    await expect(encoder.embed(['a question', '   '])).rejects.toThrow(EmbeddingError);
  });
});

describe('the default encoder (a static model distilled from it, shipped in models/)', () => {
  const encoder = new StaticEmbedder();
  const teacher = new UseLiteEmbedder();

  it('gives 128-dimension unit vectors that put paraphrases closer than unrelated questions', async () => {
    const [a, b, c] = await encoder.embed([
      'Who is the head coach of the football club?',
      'Which manager leads the soccer team?',
      'What is the boiling point of water at sea level?',
    ]);
    expect(encoder.dimensions).toBe(128);
    expect(a).toHaveLength(128);
    expect(dot(a, a)).toBeCloseTo(1, 4);
    expect(dot(a, b)).toBeGreaterThan(dot(a, c) + 0.1);
  });

  it('names its model by the file content, so stored vectors of another fit are detected', () => {
    expect(encoder.model).toMatch(/^static-use-lite-128-[0-9a-f]{8}$/);
    expect(encoder.model).not.toBe(teacher.model);
  });

  it('ranks questions like the encoder it was distilled from', async () => {
    const questions = [
      'Who is the prime minister of Japan?',
      'Who leads the Japanese government?',
      'What is the population of Nigeria?',
      'How many people live in Lagos?',
      'Who won the 2024 Tour de France?',
    ];
    const [mine, theirs] = [await encoder.embed(questions), await teacher.embed(questions)];
    const nearest = (vectors: Float32Array[], i: number) =>
      vectors
        .map((v, j) => ({ j, s: j === i ? -2 : dot(vectors[i], v) }))
        .sort((x, y) => y.s - x.s)[0].j;
    expect([0, 2].map((i) => nearest(mine, i))).toEqual([0, 2].map((i) => nearest(theirs, i)));
  });

  it('refuses empty text', async () => {
    await expect(encoder.embed(['a question', ' '])).rejects.toThrow(EmbeddingError);
  });
});

// A local stand-in for a remote OpenAI-compatible embeddings API, which cannot be
// reached from here: it answers with deterministic vectors and records requests.
describe('an OpenAI-compatible embeddings API', () => {
  let server: Server;
  let url: string;
  const seen: { auth?: string; body: { model: string; input: string[] } }[] = [];
  let dimensions = 512;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        const body = JSON.parse(raw) as { model: string; input: string[] };
        seen.push({ auth: req.headers.authorization, body });
        if (body.model === 'broken') return res.writeHead(500).end('{}');
        const data = body.input.map((text, index) => ({
          index,
          embedding: Array.from({ length: dimensions }, (_, d) =>
            d === text.length % dimensions ? 3 : 0,
          ),
        }));
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ data: data.reverse() }));
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise((done) => server.close(done)));

  it('sends the model and key, and returns unit vectors in input order', async () => {
    const embedder = new OpenAiEmbedder({ url, model: 'text-512', apiKey: 'sk-test' });
    const [a, b] = await embedder.embed(['ab', 'abc']);
    expect(seen.at(-1)).toEqual({
      auth: 'Bearer sk-test',
      body: { model: 'text-512', input: ['ab', 'abc'] },
    });
    expect(a[2]).toBeCloseTo(1);
    expect(b[3]).toBeCloseTo(1);
    expect(embedder.model).toBe('openai:text-512');
  });

  it('reports a failing API and vectors of the wrong size as embedding errors', async () => {
    await expect(new OpenAiEmbedder({ url, model: 'broken' }).embed(['x'])).rejects.toThrow(
      /answered 500/,
    );
    dimensions = 384;
    await expect(new OpenAiEmbedder({ url, model: 'small' }).embed(['x'])).rejects.toThrow(
      /512 dimensions/,
    );
    dimensions = 512;
    await expect(
      new OpenAiEmbedder({ url: 'http://127.0.0.1:1', model: 'm' }).embed(['x']),
    ).rejects.toThrow(/unreachable/);
  });
});

describe('the query cache', () => {
  it('asks the encoder once per distinct text', async () => {
    const calls: string[][] = [];
    const inner: Embedder = {
      model: 'counting',
      dimensions: 512,
      ready: true,
      embed: (texts) => {
        calls.push(texts);
        return Promise.resolve(texts.map(() => new Float32Array(512)));
      },
    };
    const cached = new CachedEmbedder(inner, 2);
    await cached.embed(['a', 'b', 'a']);
    await cached.embed(['a', 'b']);
    await cached.embed(['c']);
    await cached.embed(['a']);
    expect(calls).toEqual([['a', 'b'], ['c'], ['a']]);
  });
});
