import { isAbsolute, resolve } from 'node:path';
import type { PresetReportDto, SourceDto } from '../admin/sources-admin.dto';
import { buildConfig } from '../config/config';
import { PresetReport, SourceReport, SourcesService } from '../sources/sources.service';
import { SourcesWorker } from '../sources/sources.worker';
import { Source, SourceKind } from '../sources/sources.repository';
import { auditCli, heldFolderClient, offlineOrThroughServer } from './admin-client';
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
  const kind = options.kind;
  const source = await offlineOrThroughServer(
    async (context) => {
      const added = await context.get(SourcesService).add(url, kind, options.every);
      await auditCli(context, 'source.add', added.url, { id: added.id, kind: added.kind });
      return added;
    },
    async (admin) =>
      toSource(
        await admin.call<SourceDto>('POST', '/admin/sources', {
          // The server reads a query file from its own working folder.
          url: kind === 'sparql' && !isAbsolute(url) ? resolve(url) : url,
          kind,
          every: options.every,
        }),
      ),
  );
  console.log(`added source ${source.id}: ${summary(source)}`);
  return 0;
}

async function addPreset(name: string): Promise<number> {
  const report = await offlineOrThroughServer<PresetReport>(
    async (context) => {
      const added = await context.get(SourcesService).addPreset(name);
      await auditCli(context, 'source.add-preset', name, {
        added: added.added.map((source) => source.url),
        existing: added.existing.length,
      });
      return added;
    },
    async (admin) => {
      const added = await admin.call<PresetReportDto>('POST', '/admin/sources/presets', { name });
      return { added: added.added.map(toSource), existing: added.existing };
    },
  );
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
  const sources = await offlineOrThroughServer(
    (context) => context.get(SourcesService).list(),
    async (admin) => (await admin.call<SourceDto[]>('GET', '/admin/sources')).map(toSource),
  );
  if (sources.length === 0) console.error('no sources; add one with `freshfacts sources add`');
  for (const source of sources) console.log(describe(source));
  return 0;
}

export async function removeSource(ref: string): Promise<number> {
  const source = await offlineOrThroughServer(
    async (context) => {
      const removed = await context.get(SourcesService).remove(ref);
      await auditCli(context, 'source.remove', removed.url, { id: removed.id });
      return removed;
    },
    async (admin) =>
      toSource(await admin.call<SourceDto>('DELETE', `/admin/sources/${encodeURIComponent(ref)}`)),
  );
  console.log(`removed source ${source.id}: ${source.url} (its facts stay)`);
  return 0;
}

/**
 * One pass over the due sources (`--once`; with `--all` every source), or a worker
 * that polls until interrupted. Exits 1 when a source failed in a single pass.
 */
export async function runSources(options: { once?: boolean; all?: boolean }): Promise<number> {
  const config = buildConfig(process.env);
  const admin = heldFolderClient(config);
  if (admin) {
    // The server runs its own worker (unless FRESHFACTS_SOURCES_WORKER=off); its
    // admin API starts a source now without waiting for it.
    throw new UsageError(
      `the running server at ${admin.url} polls the sources itself; to run one now: ` +
        `curl -X POST -H "Authorization: Bearer $FRESHFACTS_ADMIN_TOKEN" ${admin.url}/admin/sources/ID/run`,
    );
  }
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
  }, config);
}

/** A source as the admin API answers it, with its dates as dates again. */
function toSource(source: SourceDto): Source {
  const date = (text: string | null) => (text === null ? null : new Date(text));
  return {
    ...source,
    kind: source.kind as SourceKind,
    last_status: source.last_status as Source['last_status'],
    next_run_at: new Date(source.next_run_at),
    last_run_at: date(source.last_run_at),
    last_ok_at: date(source.last_ok_at),
    etag: null,
    last_modified: null,
  };
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
