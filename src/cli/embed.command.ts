import { loadConfig } from '../config/config';
import { createEmbedder } from '../embeddings/embeddings.module';
import { IngestFileError } from '../facts/ingest.service';
import { parseFactLine } from '../facts/fact-record';
import { VectorFile } from '../facts/vector-file';
import { readFileSync } from 'node:fs';

/** Precomputes the question vectors of a JSON Lines file into FILE.vectors beside it. */
export async function embedCommand(file: string): Promise<number> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new IngestFileError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code}`);
  }
  const questions = [
    ...new Set(
      text.split('\n').flatMap((line) => {
        if (!line.trim()) return [];
        const parsed = parseFactLine(line);
        return 'fact' in parsed ? [parsed.fact.question.trim()] : [];
      }),
    ),
  ];
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
