import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { SingleBar } from 'cli-progress';
import type { PushSummaryDto } from '../admin/facts-admin.dto';
import { FieldError } from '../common/problem';
import { fileSize, readFactLines } from '../facts/fact-record';
import { MAX_PUSH_FACTS } from '../facts/fact-batch';
import { IngestService, IngestSummary, RejectedLine } from '../facts/ingest.service';
import { AdminClient, auditCli, offlineOrThroughServer, RemoteProblemError } from './admin-client';

const SHOWN_REJECTS = 50;
/** A push's text stays well under the server's 1 MiB. */
const PUSH_BYTES = 768 * 1024;

type Progress = (done: number) => void;

export async function ingestCommand(file: string, options: { strict?: boolean }): Promise<number> {
  const summary = await withProgress((onProgress) =>
    offlineOrThroughServer(
      async (context) => {
        const done = await context
          .get(IngestService)
          .ingestFile(file, { strict: options.strict, onProgress });
        if (!done.refused)
          await auditCli(context, 'facts.ingest', pathToFileURL(file).href, counts(done));
        return done;
      },
      (admin) => ingestThroughServer(admin, file, options.strict ?? false, onProgress),
    ),
  );
  report(file, summary);
  return summary.refused ? 1 : 0;
}

async function withProgress<T>(work: (onProgress: Progress) => Promise<T>): Promise<T> {
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
    return await work((done) =>
      bar ? bar.update(Math.round(done * 100)) : show(Math.round(done * 100)),
    );
  } finally {
    bar?.stop();
  }
}

/**
 * The file pushed to the running server a batch at a time (each one transaction, as
 * offline), its line numbers kept; `strict` is checked here first, as offline, so a
 * bad file sends nothing.
 */
async function ingestThroughServer(
  admin: AdminClient,
  file: string,
  strict: boolean,
  onProgress: Progress,
): Promise<IngestSummary> {
  fileSize(file);
  const summary: IngestSummary = {
    added: 0,
    merged: 0,
    retracted: 0,
    rejected: [],
    droppedSources: 0,
    refused: false,
  };
  if (strict) {
    for await (const { number, parsed } of readFactLines(file)) {
      if ('errors' in parsed) summary.rejected.push({ line: number, errors: parsed.errors });
    }
    if (summary.rejected.length) return { ...summary, refused: true };
  }
  const lines = readFileSync(file, 'utf8').split('\n');
  for (const batch of batches(lines)) {
    const pushed = await push(admin, batch.lines.join('\n'));
    summary.added += pushed.added;
    summary.merged += pushed.merged;
    summary.retracted += pushed.retracted;
    summary.droppedSources += pushed.dropped_sources;
    for (const { line, errors } of pushed.rejected) {
      summary.rejected.push({ line: batch.numbers[line - 1], errors });
    }
    onProgress(batch.end / lines.length);
  }
  onProgress(1);
  return summary;
}

/** The file's non-blank lines in pushes the server takes, with their line numbers. */
function* batches(lines: string[]) {
  let batch = { lines: [] as string[], numbers: [] as number[], bytes: 0, end: 0 };
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].trim()) continue;
    const bytes = Buffer.byteLength(lines[i]) + 1;
    if (
      batch.lines.length === MAX_PUSH_FACTS ||
      (batch.lines.length && batch.bytes + bytes > PUSH_BYTES)
    ) {
      yield batch;
      batch = { lines: [], numbers: [], bytes: 0, end: 0 };
    }
    batch.lines.push(lines[i]);
    batch.numbers.push(i + 1);
    batch.bytes += bytes;
    batch.end = i + 1;
  }
  if (batch.lines.length) yield batch;
}

/** One push; a push of only bad lines is refused whole, which is the same as all rejected. */
async function push(admin: AdminClient, text: string): Promise<PushSummaryDto> {
  try {
    return await admin.call<PushSummaryDto>('POST', '/admin/facts', text, 'application/x-ndjson');
  } catch (err) {
    const errors = err instanceof RemoteProblemError ? lineErrors(err) : undefined;
    if (!errors) throw err;
    return { added: 0, merged: 0, retracted: 0, rejected: errors, dropped_sources: 0 };
  }
}

function lineErrors(err: RemoteProblemError): RejectedLine[] | undefined {
  const errors = err.problem.errors as FieldError[] | undefined;
  if (err.status !== 422 || !errors?.every((e) => typeof e.loc[1] === 'number')) return undefined;
  const byLine = new Map<number, string[]>();
  for (const { loc, msg } of errors) {
    byLine.set(loc[1] as number, [...(byLine.get(loc[1] as number) ?? []), msg]);
  }
  return [...byLine].map(([line, messages]) => ({ line, errors: messages }));
}

function counts(summary: IngestSummary): Record<string, number> {
  return {
    added: summary.added,
    merged: summary.merged,
    retracted: summary.retracted,
    rejected: summary.rejected.length,
  };
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
  const retracted = summary.retracted;
  console.log(
    `added ${summary.added}, merged ${summary.merged}, rejected ${summary.rejected.length}` +
      (retracted ? `; skipped ${retracted} retracted` : '') +
      (dropped ? `; dropped ${dropped} malformed source URL${dropped === 1 ? '' : 's'}` : ''),
  );
}
