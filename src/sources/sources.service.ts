import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostname } from 'node:os';
import { Inject, Injectable } from '@nestjs/common';
import { AppConfig, CONFIG } from '../config/config';
import { isDatabaseUnavailable } from '../database/errors';
import { FactDto } from '../facts/fact.dto';
import { IngestService } from '../facts/ingest.service';
import { Article, ArticleFormatError } from './articles/article';
import { decodeBody } from './articles/decode';
import { readFeed } from './articles/feed.reader';
import { readPage } from './articles/page.reader';
import { ExtractorUnavailableError, LlmExtractor } from './extraction/llm.extractor';
import { Fetched, Fetcher, FetchError } from './fetcher';
import {
  Outcome,
  Source,
  SourceExistsError,
  SourceKind,
  SourceNotFoundError,
  SourcesRepository,
} from './sources.repository';
import { Preset, presetSources } from './presets';
import { checkKind, checkQuery, checkUrl, parseInterval, SourceInputError } from './source-input';
import { SparqlClient } from './sparql/sparql.client';
import { SparqlResultError } from './sparql/sparql-results';
import { dumpFileLines, dumpVersion } from './wikidata/dump-file';
import { EntityFormatError } from './wikidata/entities';
import { WikidataExtractor } from './wikidata/wikidata.extractor';

/** What one run of one source did, for the operator. */
export interface SourceReport {
  source: Source;
  status: Outcome['status'];
  error?: string;
  /** Articles stored that were not stored before. */
  newDocuments: number;
  /** Articles waiting for an extractor (none configured, or it failed). */
  pending: number;
  added: number;
  merged: number;
  /** Rejected facts or statements, counted by reason. */
  rejected: Record<string, number>;
}

/** What `sources add --preset` did: the sources it added, and those it found already there. */
export interface PresetReport {
  added: Source[];
  existing: string[];
}

/** A worker holds a source at most this long; a crashed worker's source is then taken up again. */
const LEASE_SECONDS = 15 * 60;

/**
 * Keeps facts current from upstream sources: registers them, and runs each due
 * source through fetch → extract → the same validated, de-duplicated ingest as a
 * facts file. A failing source is recorded with its error and retried later; it
 * never stops the others.
 */
@Injectable()
export class SourcesService {
  private readonly fetcher: Fetcher;
  private readonly llm?: LlmExtractor;
  private readonly sparql: SparqlClient;
  /** Names this worker on the sources it leases. */
  readonly worker = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

  constructor(
    private readonly sources: SourcesRepository,
    private readonly ingest: IngestService,
    @Inject(CONFIG) private readonly config: AppConfig,
  ) {
    this.fetcher = new Fetcher(config.fetch);
    this.llm = config.llm ? new LlmExtractor(config.llm) : undefined;
    this.sparql = new SparqlClient(config.sparql, config.fetch);
  }

  get extracting(): boolean {
    return this.llm !== undefined;
  }

  /** A source; for `sparql`, `url` is the path of a query file. */
  async add(url: string, kind: string, every = '1h'): Promise<Source> {
    const checked = checkKind(kind);
    if (checked === 'sparql') {
      const { name, text } = readQueryFile(url);
      return this.addQuery(name, text, every);
    }
    return this.sources.add(checkUrl(url, checked), checked, parseInterval(every));
  }

  /**
   * A SPARQL query of facts, sent to the configured endpoint; the source's URL is the
   * endpoint's with the query's name as fragment, so it says where the facts come from.
   */
  async addQuery(name: string, query: string, every = '1d'): Promise<Source> {
    const url = `${this.config.sparql.url}#${encodeURIComponent(name)}`;
    return this.sources.add(url, 'sparql', parseInterval(every), checkQuery(query, name));
  }

  /** Adds every source of a shipped preset (`wikidata`, `news`); those already there stay as they are. */
  async addPreset(name: string): Promise<PresetReport> {
    const report: PresetReport = { added: [], existing: [] };
    for (const preset of presetSources(name)) {
      try {
        report.added.push(await this.addPresetSource(preset));
      } catch (err) {
        if (!(err instanceof SourceExistsError)) throw err;
        report.existing.push(preset.kind === 'sparql' ? preset.name : preset.url);
      }
    }
    return report;
  }

  private addPresetSource(preset: Preset): Promise<Source> {
    if (preset.kind === 'sparql') return this.addQuery(preset.name, preset.query, preset.every);
    return this.add(preset.url, preset.kind, preset.every);
  }

  list(): Promise<Source[]> {
    return this.sources.list();
  }

  async remove(ref: string): Promise<Source> {
    const removed = await this.sources.remove(checkRef(ref));
    if (!removed) throw new SourceNotFoundError(`no source ${ref}`);
    return removed;
  }

  /** Makes a source (by id or URL) due now; a worker's next pass runs it. */
  async makeDue(ref: string): Promise<Source> {
    const source = await this.sources.makeDue(checkRef(ref));
    if (!source) throw new SourceNotFoundError(`no source ${ref}`);
    return source;
  }

  /**
   * Runs due sources (with `all`, every source once) until none is left, calling
   * `onReport` after each. Several workers may do this at once.
   */
  async runDue(options: { all?: boolean; onReport?: (report: SourceReport) => void } = {}) {
    const since = options.all ? await this.sources.clock() : undefined;
    const reports: SourceReport[] = [];
    for (;;) {
      const source = await this.sources.claim(this.worker, LEASE_SECONDS, since);
      if (!source) return reports;
      const report = await this.runOne(source);
      reports.push(report);
      options.onReport?.(report);
    }
  }

  private async runOne(source: Source): Promise<SourceReport> {
    const report: SourceReport = {
      source,
      status: 'ok',
      newDocuments: 0,
      pending: 0,
      added: 0,
      merged: 0,
      rejected: {},
    };
    let outcome: Outcome;
    try {
      outcome = await this.fetchAndExtract(source, report);
    } catch (err) {
      outcome = { status: 'failed', error: failureMessage(err), retryAfterMs: retryAfter(err) };
    }
    if (source.kind === 'sparql' && outcome.retryAfterMs) {
      await this.sources.pauseKind('sparql', Math.ceil(outcome.retryAfterMs / 1000));
    }
    report.status = outcome.status;
    report.error = outcome.error;
    const rejected = Object.values(report.rejected).reduce((sum, n) => sum + n, 0);
    await this.sources.finish(source, this.worker, {
      ...outcome,
      documents: report.newDocuments,
      added: report.added,
      rejected,
    });
    report.pending = await this.sources.pendingCount(source.id);
    return report;
  }

  private async fetchAndExtract(source: Source, report: SourceReport): Promise<Outcome> {
    if (source.url.startsWith('file:')) return this.ingestDumpFile(source, report);
    if (source.kind === 'sparql') return this.ingestSparql(source, report);
    const fetched = await this.fetcher.get(source.url, {
      etag: source.etag,
      lastModified: source.last_modified,
    });
    if (fetched.status === 'ok') {
      const text = decodeBody(fetched.body, fetched.contentType);
      if (source.kind === 'wikidata') await this.ingestWikidata(source, text, report);
      else
        report.newDocuments = await this.sources.saveDocuments(
          source.id,
          await articlesOf(source.kind, text, fetched),
        );
    }
    // Articles stored earlier while no extractor was configured (or it failed) go too.
    const extractorError = await this.extractPending(source, report);
    const validators =
      fetched.status === 'ok'
        ? { fetched: { etag: fetched.etag, lastModified: fetched.lastModified } }
        : {};
    if (extractorError) return { status: 'failed', error: extractorError, ...validators };
    return { status: fetched.status, ...validators };
  }

  private async ingestWikidata(source: Source, text: string, report: SourceReport) {
    const extractor = new WikidataExtractor(this.fetcher, this.config.wikidataApiUrl);
    const { facts, rejected } = await extractor.extract(text);
    rejected.forEach((reason) => count(report, wikidataReason(reason)));
    await this.store(source, facts, report);
  }

  /**
   * The rows of a SPARQL query, each one fact. The whole result is read and checked
   * before anything is stored: a failed query, or a result that is not one, stores nothing.
   */
  private async ingestSparql(source: Source, report: SourceReport): Promise<Outcome> {
    const endpoint = source.url.replace(/#.*$/, '');
    const { facts, rejected } = await this.sparql.select(endpoint, source.query ?? '');
    rejected.forEach((reason) => count(report, reason));
    await this.store(source, facts, report);
    return { status: 'ok' };
  }

  /**
   * A Wikidata dump on local disk (refreshed by the operator's own downloader),
   * streamed line by line, gzipped or not, and stored a batch at a time. Its size and
   * modification time stand in for an ETag: an unchanged file is not read again.
   */
  private async ingestDumpFile(source: Source, report: SourceReport): Promise<Outcome> {
    const path = fileURLToPath(source.url);
    const version = await dumpVersion(path);
    if (source.etag === version) return { status: 'not-modified' };
    const extractor = new WikidataExtractor(this.fetcher, this.config.wikidataApiUrl);
    try {
      for await (const batch of extractor.extractDump(dumpFileLines(path))) {
        batch.rejected.forEach((reason) => count(report, wikidataReason(reason)));
        await this.store(source, batch.facts, report, { deferStats: true });
      }
    } finally {
      if (report.added + report.merged > 0) await this.ingest.refreshStats();
    }
    return { status: 'ok', fetched: { etag: version, lastModified: null } };
  }

  /**
   * Extracts facts from the source's pending articles and stores them in one ingest.
   * Returns the extractor's error, if it failed: the articles not read stay pending.
   */
  private async extractPending(source: Source, report: SourceReport): Promise<string | undefined> {
    if (!this.llm) return undefined;
    const facts: FactDto[] = [];
    const read: { id: string; kept: number; rejected: number }[] = [];
    let failure: string | undefined;
    for (const document of await this.sources.pendingDocuments(source.id)) {
      try {
        const extraction = await this.llm.extract(document);
        extraction.rejected.forEach((reason) => count(report, reason));
        facts.push(...extraction.facts);
        read.push({
          id: document.id,
          kept: extraction.facts.length,
          rejected: extraction.rejected.length,
        });
      } catch (err) {
        if (!(err instanceof ExtractorUnavailableError)) throw err;
        failure = `extractor: ${err.message}`;
        break;
      }
    }
    await this.store(source, facts, report);
    for (const document of read) {
      await this.sources.markExtracted(document.id, document.kept, document.rejected);
    }
    return failure;
  }

  /** The one ingest path, with the source as the facts' origin. */
  private async store(
    source: Source,
    facts: FactDto[],
    report: SourceReport,
    options: { deferStats?: boolean } = {},
  ): Promise<void> {
    if (facts.length === 0) return;
    const origin = { origin: source.url, kind: source.kind, sourceId: source.id };
    const summary = await this.ingest.ingestValues(facts, origin, options);
    report.added += summary.added;
    report.merged += summary.merged;
    summary.rejected.forEach(() => count(report, 'invalid fact'));
    // An operator took these back; the source's copy does not bring them back.
    for (let i = 0; i < summary.retracted; i++) count(report, 'retracted fact');
  }
}

async function articlesOf(
  kind: SourceKind,
  text: string,
  fetched: Fetched & { status: 'ok' },
): Promise<Article[]> {
  return kind === 'feed' ? readFeed(text, fetched.url) : [readPage(text, fetched.url)];
}

function count(report: SourceReport, reason: string): void {
  report.rejected[reason] = (report.rejected[reason] ?? 0) + 1;
}

/** Wikidata rejections name the statement; counted by their kind. */
function wikidataReason(reason: string): string {
  if (reason.includes('no English label for')) return 'value without an English label';
  if (reason.includes('no English label')) return 'entity without an English label';
  return 'malformed dump line';
}

/**
 * Why a source failed, as recorded on it. A database outage is not the source's
 * fault and stops the run instead.
 */
function failureMessage(err: unknown): string {
  if (isDatabaseUnavailable(err)) throw err;
  if (
    err instanceof FetchError ||
    err instanceof ArticleFormatError ||
    err instanceof EntityFormatError ||
    err instanceof SparqlResultError
  ) {
    return err.message;
  }
  return `unexpected: ${err instanceof Error ? err.message : String(err)}`;
}

function retryAfter(err: unknown): number | undefined {
  return err instanceof FetchError ? err.retryAfterMs : undefined;
}

/** A source's id, or its URL; an id beyond bigint names no source rather than failing. */
function checkRef(ref: string): string {
  const text = ref.trim();
  if (/^\d+$/.test(text) && !/^[1-9]\d{0,17}$/.test(text))
    throw new SourceNotFoundError(`no source ${ref}`);
  return text;
}

/** A query file's text, and its name (the file's, without `.rq`). */
function readQueryFile(path: string): { name: string; text: string } {
  try {
    return {
      name: basename(path).replace(/\.(rq|sparql)$/i, ''),
      text: readFileSync(path, 'utf8'),
    };
  } catch {
    throw new SourceInputError(`a sparql source is a query file; cannot read ${path}`);
  }
}
