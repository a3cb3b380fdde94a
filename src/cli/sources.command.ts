import { SourceReport, SourcesService } from '../sources/sources.service';
import { SourcesWorker } from '../sources/sources.worker';
import { Source } from '../sources/sources.repository';
import { UsageError, withContext } from './context';

export interface AddSourceOptions {
  kind?: string;
  every?: string;
  preset?: string;
}

/** One source (`URL --kind K`), or every source of a shipped preset (`--preset NAME`). */
export async function addSource(url: string | undefined, options: AddSourceOptions) {
  if (options.preset) {
    if (url || options.kind || options.every) {
      throw new UsageError('--preset takes no URL, --kind or --every: its files set them');
    }
    return addPreset(options.preset);
  }
  if (!url || !options.kind)
    throw new UsageError('sources add needs a URL and --kind (or --preset)');
  const source = await withContext((context) =>
    context.get(SourcesService).add(url, options.kind ?? '', options.every),
  );
  console.log(`added source ${source.id}: ${summary(source)}`);
  return 0;
}

async function addPreset(name: string): Promise<number> {
  const report = await withContext((context) => context.get(SourcesService).addPreset(name));
  for (const source of report.added) console.log(`added source ${source.id}: ${summary(source)}`);
  for (const ref of report.existing) console.log(`already a source: ${ref}`);
  console.log(
    `preset ${name}: ${report.added.length} added, ${report.existing.length} already there`,
  );
  return 0;
}

function summary(source: Source): string {
  return `${source.kind} ${source.url} every ${duration(source.every_seconds)}`;
}

export async function listSources(): Promise<number> {
  const sources = await withContext((context) => context.get(SourcesService).list());
  if (sources.length === 0) console.error('no sources; add one with `freshfacts sources add`');
  for (const source of sources) console.log(describe(source));
  return 0;
}

export async function removeSource(ref: string): Promise<number> {
  const source = await withContext((context) => context.get(SourcesService).remove(ref));
  console.log(`removed source ${source.id}: ${source.url} (its facts stay)`);
  return 0;
}

/**
 * One pass over the due sources (`--once`; with `--all` every source), or a worker
 * that polls until interrupted. Exits 1 when a source failed in a single pass.
 */
export async function runSources(options: { once?: boolean; all?: boolean }): Promise<number> {
  return withContext(async (context) => {
    const service = context.get(SourcesService);
    if (!service.extracting) {
      console.error(
        'no LLM configured (FRESHFACTS_LLM_URL, FRESHFACTS_LLM_MODEL): feeds and pages are ' +
          'fetched and their articles stored for extraction later',
      );
    }
    if (!options.once) {
      const stop = new AbortController();
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
      console.error('polling sources; Ctrl-C stops after the source in hand');
      await context.get(SourcesWorker).poll(stop.signal, print);
      return 0;
    }
    const reports = await service.runDue({ all: options.all, onReport: print });
    const failed = reports.filter((report) => report.status === 'failed').length;
    const unchanged = reports.filter((report) => report.status === 'not-modified').length;
    const pending = reports.reduce((sum, report) => sum + report.pending, 0);
    console.log(
      `sources: ${reports.length} run, ${unchanged} not modified, ${failed} failed` +
        (pending ? `; ${pending} articles wait for extraction` : ''),
    );
    return failed > 0 ? 1 : 0;
  });
}

function print(report: SourceReport): void {
  const { source } = report;
  const head = `source ${source.id} ${source.kind} ${source.url}`;
  if (report.status === 'failed') console.log(`${head}: failed: ${report.error}`);
  if (report.status === 'not-modified') console.log(`${head}: not modified`);
  const rejected = Object.entries(report.rejected)
    .map(([reason, n]) => `${n} ${reason}`)
    .join(', ');
  if (report.status !== 'failed' || report.added + report.merged > 0) {
    console.log(
      `${head}: ${report.newDocuments} new articles, ${report.pending} pending; ` +
        `facts added ${report.added}, merged ${report.merged}, rejected ${rejected || 0}`,
    );
  }
}

function describe(source: Source): string {
  const last = source.last_run_at
    ? `${source.last_status} at ${source.last_run_at.toISOString()}`
    : 'never run';
  const error = source.last_error ? ` (${source.last_error})` : '';
  return [
    `${source.id}  ${source.kind}  ${source.url}`,
    `    every ${duration(source.every_seconds)}; last ${last}${error}; next ${source.next_run_at.toISOString()}`,
    `    ${source.documents} articles, ${source.facts_added} facts added, ${source.facts_rejected} rejected` +
      (source.failures ? `, ${source.failures} failures in a row` : ''),
  ].join('\n');
}

function duration(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}
