import { buildConfig } from '../config/config';
import { createEmbedder } from '../embeddings/embeddings.module';
import { Embedder } from '../embeddings/embedder';
import { fileSize, readFactLines } from '../facts/fact-record';
import { VectorFile } from '../facts/vector-file';

export interface EmbeddedFile {
  path: string;
  questions: number;
  seconds: number;
}

/** Embeds the distinct questions of a facts file and writes FILE.vectors beside it. */
export async function embedFile(file: string, embedder: Embedder): Promise<EmbeddedFile> {
  fileSize(file);
  const unique = new Set<string>();
  for await (const { parsed } of readFactLines(file)) {
    if ('fact' in parsed) unique.add(parsed.fact.question.trim());
  }
  const questions = [...unique];
  const started = performance.now();
  const vectors = await embedder.embed(questions);
  const seconds = (performance.now() - started) / 1000;
  const entries = questions.map((q, i): [string, Float32Array] => [q, vectors[i]]);
  return {
    path: VectorFile.write(file, embedder.model, entries),
    questions: questions.length,
    seconds,
  };
}

/** Precomputes the question vectors of a JSON Lines file into FILE.vectors beside it. */
export async function embedCommand(file: string): Promise<number> {
  const { path, questions, seconds } = await embedFile(
    file,
    createEmbedder(buildConfig(process.env)),
  );
  console.error(
    `embedded ${questions} questions in ${seconds.toFixed(1)} s (${(questions / seconds).toFixed(0)}/s)`,
  );
  console.log(`wrote ${path}`);
  return 0;
}
