import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DomainError } from '../common/problem';
import { Article } from './articles/article';

export const SOURCE_KINDS = ['feed', 'page', 'wikidata', 'sparql'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export interface Source {
  id: string;
  url: string;
  kind: SourceKind;
  /** A `sparql` source's query; its URL is the endpoint's, with the query's name as fragment. */
  query: string | null;
  every_seconds: number;
  next_run_at: Date;
  etag: string | null;
  last_modified: string | null;
  last_run_at: Date | null;
  last_ok_at: Date | null;
  last_status: 'ok' | 'not-modified' | 'failed' | null;
  last_error: string | null;
  failures: number;
  documents: number;
  facts_added: number;
  facts_rejected: number;
}

/** How one fetch of a source went, as recorded on it. */
export interface Outcome {
  status: 'ok' | 'not-modified' | 'failed';
  error?: string;
  /** Validators of a 200 response; kept for the next conditional request. */
  fetched?: { etag: string | null; lastModified: string | null };
  documents?: number;
  added?: number;
  rejected?: number;
  /** The server asked for a pause: the next attempt waits at least this long. */
  retryAfterMs?: number;
}

export interface StoredDocument extends Article {
  id: string;
}

// bigint ids as text: PGlite and pg would otherwise disagree on their type.
const COLUMNS = `id::text AS id, url, kind, query, every_seconds, next_run_at, etag, last_modified,
  last_run_at, last_ok_at, last_status, last_error, failures, documents, facts_added, facts_rejected`;

/** First retry after a failure; doubles with each failure up to the source's interval. */
const FIRST_RETRY_SECONDS = 60;

export class SourceExistsError extends DomainError {
  constructor(detail: string) {
    super('source-exists', 'Source exists', detail);
  }
}

export class SourceNotFoundError extends DomainError {
  constructor(detail: string) {
    super('source-not-found', 'No such source', detail);
  }
}

/** The only code that speaks SQL to the sources and documents tables. */
@Injectable()
export class SourcesRepository {
  constructor(private readonly db: DataSource) {}

  async add(url: string, kind: SourceKind, everySeconds: number, query?: string): Promise<Source> {
    const [row] = await this.db.query<Source[]>(
      `INSERT INTO sources (url, kind, every_seconds, query) VALUES ($1, $2, $3, $4)
       ON CONFLICT (url) DO NOTHING RETURNING ${COLUMNS}`,
      [url, kind, everySeconds, query ?? null],
    );
    if (!row) throw new SourceExistsError(`${url} is already a source`);
    return row;
  }

  /** Makes a source due now, so that the next pass of a worker runs it. */
  async makeDue(ref: string): Promise<Source | undefined> {
    const [rows] = await this.db.query<[Source[], number]>(
      `UPDATE sources SET next_run_at = now()
       WHERE ${/^\d+$/.test(ref) ? 'id = $1::bigint' : 'url = $1'} RETURNING ${COLUMNS}`,
      [ref],
    );
    return rows[0];
  }

  list(): Promise<Source[]> {
    return this.db.query<Source[]>(`SELECT ${COLUMNS} FROM sources ORDER BY id`);
  }

  /** Removes a source (by id or URL) and its documents; its facts and their provenance stay. */
  async remove(ref: string): Promise<Source | undefined> {
    const [rows] = await this.db.query<[Source[], number]>(
      `DELETE FROM sources WHERE ${/^\d+$/.test(ref) ? 'id = $1::bigint' : 'url = $1'} RETURNING ${COLUMNS}`,
      [ref],
    );
    return rows[0];
  }

  /**
   * Leases the next due source to `worker`, or returns undefined when none is due.
   * Workers skip each other's locked rows, and a lease runs out, so a source is
   * fetched by one worker at a time and a crashed worker's source is taken up again.
   * With `since`, every source not yet run since then is due (one pass over all).
   * SPARQL endpoints ask for one query at a time per client: while any worker holds a
   * `sparql` source, the others leave theirs.
   */
  async claim(worker: string, leaseSeconds: number, since?: string): Promise<Source | undefined> {
    const due = since
      ? `(last_run_at IS NULL OR last_run_at < $3::timestamptz)`
      : `next_run_at <= now()`;
    const [rows] = await this.db.query<[Source[], number]>(
      `UPDATE sources SET leased_until = now() + make_interval(secs => $2), leased_by = $1
       WHERE id = (
         SELECT id FROM sources
         WHERE ${due} AND (leased_until IS NULL OR leased_until < now())
           AND NOT (kind = 'sparql' AND EXISTS (
             SELECT 1 FROM sources busy WHERE busy.kind = 'sparql' AND busy.leased_until >= now()))
         ORDER BY next_run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING ${COLUMNS}`,
      since ? [worker, leaseSeconds, since] : [worker, leaseSeconds],
    );
    return rows[0];
  }

  /**
   * The database's clock, to the microsecond, as text: run times are written by the
   * database, so "before this run started" must be read on the same clock and at the
   * same precision (the process's clock can lag it, and a JS Date drops microseconds).
   */
  async clock(): Promise<string> {
    const [row] = await this.db.query<{ now: string }[]>(`SELECT clock_timestamp()::text AS now`);
    return row.now;
  }

  /** Records the outcome, schedules the next run and gives the lease back. */
  async finish(source: Source, worker: string, outcome: Outcome): Promise<void> {
    const failed = outcome.status === 'failed';
    await this.db.query(
      `UPDATE sources SET
         leased_until = NULL, leased_by = NULL, last_run_at = now(),
         last_status = $3, last_error = $4,
         etag = CASE WHEN $12 THEN $5 ELSE etag END,
         last_modified = CASE WHEN $12 THEN $6 ELSE last_modified END,
         last_ok_at = CASE WHEN $7 THEN last_ok_at ELSE now() END,
         failures = CASE WHEN $7 THEN failures + 1 ELSE 0 END,
         documents = documents + $8, facts_added = facts_added + $9,
         facts_rejected = facts_rejected + $10,
         next_run_at = now() + make_interval(secs => CASE WHEN $7
           THEN greatest($11, least(every_seconds, ${FIRST_RETRY_SECONDS} * 2 ^ failures))
           ELSE every_seconds END)
       WHERE id = $1 AND leased_by = $2`,
      [
        source.id,
        worker,
        outcome.status,
        outcome.error ?? null,
        outcome.fetched?.etag ?? null,
        outcome.fetched?.lastModified ?? null,
        failed,
        outcome.documents ?? 0,
        outcome.added ?? 0,
        outcome.rejected ?? 0,
        Math.ceil((outcome.retryAfterMs ?? 0) / 1000),
        outcome.fetched !== undefined,
      ],
    );
  }

  /**
   * After an endpoint asked for a pause (429 with Retry-After), no source of the kind
   * asks it again before the pause is over, whichever worker holds it.
   */
  async pauseKind(kind: SourceKind, seconds: number): Promise<void> {
    await this.db.query(
      `UPDATE sources SET next_run_at = greatest(next_run_at, now() + make_interval(secs => $2))
       WHERE kind = $1`,
      [kind, seconds],
    );
  }

  /** Stores the articles not stored before (same URL and text); returns how many were new. */
  async saveDocuments(sourceId: string, articles: Article[]): Promise<number> {
    if (articles.length === 0) return 0;
    const records = articles.map((article) => ({
      url: article.url,
      title: article.title,
      published_at: article.published?.at.toISOString() ?? null,
      published_day: article.published?.day ?? null,
      text: article.text,
      content_hash: createHash('sha256').update(article.text).digest('hex'),
    }));
    const rows = await this.db.query<{ id: string }[]>(
      `INSERT INTO documents (source_id, url, title, published_at, published_day, text, content_hash)
       SELECT $1::bigint, r.url, r.title, r.published_at::timestamptz, r.published_day::date, r.text, r.content_hash
       FROM jsonb_to_recordset($2::jsonb) AS r(url text, title text, published_at text,
         published_day text, text text, content_hash text)
       ON CONFLICT (url, content_hash) DO NOTHING RETURNING id`,
      [sourceId, JSON.stringify(records)],
    );
    return rows.length;
  }

  /** Documents of a source that no extractor has read yet, oldest first. */
  async pendingDocuments(sourceId: string): Promise<StoredDocument[]> {
    const rows = await this.db.query<
      (Omit<StoredDocument, 'published'> & {
        published_at: Date | null;
        published_day: string | null;
      })[]
    >(
      `SELECT id::text, url, title, published_at, to_char(published_day, 'YYYY-MM-DD') AS published_day, text
       FROM documents WHERE source_id = $1::bigint AND extracted_at IS NULL ORDER BY id`,
      [sourceId],
    );
    return rows.map(({ published_at, published_day, ...document }) => ({
      ...document,
      published:
        published_at && published_day ? { at: published_at, day: published_day } : undefined,
    }));
  }

  async markExtracted(documentId: string, added: number, rejected: number): Promise<void> {
    await this.db.query(
      `UPDATE documents SET extracted_at = now(), facts_added = $2, facts_rejected = $3
       WHERE id = $1::bigint`,
      [documentId, added, rejected],
    );
  }

  async pendingCount(sourceId: string): Promise<number> {
    const [row] = await this.db.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM documents WHERE source_id = $1::bigint AND extracted_at IS NULL`,
      [sourceId],
    );
    return row.n;
  }
}
