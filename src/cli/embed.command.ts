import { loadConfig } from '../config/config';
import { createEmbedder } from '../embeddings/embeddings.module';
import { fileSize, readFactLines } from '../facts/fact-record';
import { VectorFile } from '../facts/vector-file';

/** Precomputes the question vectors of a JSON Lines file into FILE.vectors beside it. */
export async function embedCommand(file: string): Promise<number> {
  fileSize(file);
  const unique = new Set<string>();
  for await (const { parsed } of readFactLines(file)) {
    if ('fact' in parsed) unique.add(parsed.fact.question.trim());
  }
  const questions = [...unique];
  const embedder = createEmbedder(loadConfig());
  const started = Date.now();
  const vectors = await embedder.embed(questions);
  const seconds = (Date.now() - started) / 1000;
  console.error(
    `embedded ${questions.length} questions in ${seconds.toFixed(1)} s (${(questions.length / seconds).toFixed(0)}/s)`,
  );
  const path = VectorFile.write(
    file,
    embedder.model,
    questions.map((q, i) => [q, vectors[i]]),
  );
  console.log(`wrote ${path}`);
  return 0;
}
