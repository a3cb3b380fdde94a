import { SingleBar } from 'cli-progress';
import { IngestService, IngestSummary } from '../facts/ingest.service';
import { withContext } from './context';

const SHOWN_REJECTS = 50;

export async function ingestCommand(file: string, options: { strict?: boolean }): Promise<number> {
  const summary = await withContext(async (context) => {
    const bar = process.stderr.isTTY
      ? new SingleBar({
          stream: process.stderr,
          format: 'ingest [{bar}] {percentage}% | {duration}s',
        })
      : undefined;
    bar?.start(100, 0);
    let shown = -1;
    const show = (percent: number) => {
      if (percent !== shown) console.error(`ingest: ${(shown = percent)}% committed`);
    };
    try {
      return await context.get(IngestService).ingestFile(file, {
        strict: options.strict,
        onProgress: (done) =>
          bar ? bar.update(Math.round(done * 100)) : show(Math.round(done * 100)),
      });
    } finally {
      bar?.stop();
    }
  });
  report(file, summary);
  return summary.refused ? 1 : 0;
}

function report(file: string, summary: IngestSummary): void {
  for (const { line, errors } of summary.rejected.slice(0, SHOWN_REJECTS)) {
    console.error(`${file}:${line}: ${errors.join('; ')}`);
  }
  if (summary.rejected.length > SHOWN_REJECTS) {
    console.error(`… and ${summary.rejected.length - SHOWN_REJECTS} more rejected lines`);
  }
  if (summary.refused) {
    console.error(
      `refused: ${summary.rejected.length} bad lines and --strict; nothing was written`,
    );
    return;
  }
  const dropped = summary.droppedSources;
  console.log(
    `added ${summary.added}, merged ${summary.merged}, rejected ${summary.rejected.length}` +
      (dropped ? `; dropped ${dropped} malformed source URL${dropped === 1 ? '' : 's'}` : ''),
  );
}
