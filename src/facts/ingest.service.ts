import { Inject, Injectable } from '@nestjs/common';
import { EMBEDDER, Embedder, EmbeddingError } from '../embeddings/embedder';
import { FactDto } from './fact.dto';
import { checkFact, dedupKey, fileSize, ParsedLine, readFactLines } from './fact-record';
import { FactBatchError, parseFactBatch } from './fact-batch';
import { RetractionsRepository } from './retractions.repository';
import { pathToFileURL } from 'node:url';
import { FactsRepository, FactVector, NewFact, Origin, ReadyFact } from './facts.repository';
import { MaintenanceService } from './maintenance.service';
import { StatisticsRepository } from './statistics.repository';
import { VectorFile } from './vector-file';

export interface RejectedLine {
  line: number;
  errors: string[];
}

export interface IngestSummary {
  added: number;
  merged: number;
  /** Facts skipped because an operator retracted them (see RetractionsService). */
  retracted: number;
  rejected: RejectedLine[];
  /** Malformed source URLs dropped from facts that were kept for their valid ones. */
  droppedSources: number;
  /** True when `strict` refused the file and nothing was written. */
  refused: boolean;
  /** Seconds spent after a bulk load into an empty store: date layout and search indexes. */
  indexSeconds?: number;
}

/** A summary of nothing ingested yet, for a run to add to. */
export function emptySummary(): IngestSummary {
  return { added: 0, merged: 0, retracted: 0, rejected: [], droppedSources: 0, refused: false };
}

export interface IngestOptions {
  strict?: boolean;
  /** Called after each committed batch with the share of the file read (0..1). */
  onProgress?: (done: number) => void;
  batchSize?: number;
}

/**
 * The one way facts enter the store: validate, de-duplicate, embed what is new,
 * and upsert in transactions of one batch each, so an interrupted run leaves only
 * whole batches behind and running it again converges.
 */
@Injectable()
export class IngestService {
  constructor(
    private readonly facts: FactsRepository,
    private readonly statistics: StatisticsRepository,
    private readonly maintenance: MaintenanceService,
    private readonly retractions: RetractionsRepository,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
  ) {}

  async ingestFile(path: string, options: IngestOptions = {}): Promise<IngestSummary> {
    const size = fileSize(path);
    if (options.strict) {
      const rejected = await rejectedLines(path);
      if (rejected.length > 0) {
        return { ...emptySummary(), rejected, refused: true };
      }
    }
    const bulk = (await this.facts.count()) === 0;
    if (bulk) await this.maintenance.dropSearchIndexes();
    let summary: IngestSummary | undefined;
    try {
      const origin: Origin = { origin: pathToFileURL(path).href, kind: 'file' };
      summary = await this.loadBatches(path, size, origin, options);
      await this.statistics.refreshStats();
      return summary;
    } finally {
      if (bulk) {
        const started = performance.now();
        await this.maintenance.finishBulkLoad();
        if (summary) summary.indexSeconds = (performance.now() - started) / 1000;
      }
    }
  }

  /** Reads the file once, committing every `batchSize` good lines. */
  private async loadBatches(
    path: string,
    size: number,
    origin: Origin,
    options: IngestOptions,
  ): Promise<IngestSummary> {
    const vectors = VectorFile.load(path, this.embedder.model);
    const summary = emptySummary();
    let batch: FactDto[] = [];
    const flush = async (bytes: number) => {
      const result = await this.ingestFacts(batch, origin, vectors);
      summary.added += result.added;
      summary.merged += result.merged;
      summary.retracted += result.retracted;
      batch = [];
      options.onProgress?.(size ? Math.min(1, bytes / size) : 1);
    };
    for await (const { number, parsed, bytes } of readFactLines(path)) {
      if ('errors' in parsed) summary.rejected.push({ line: number, errors: parsed.errors });
      else {
        batch.push(parsed.fact);
        summary.droppedSources += parsed.droppedSources;
      }
      if (batch.length >= (options.batchSize ?? 256)) await flush(bytes);
    }
    await flush(size);
    return summary;
  }

  /** Validates and ingests facts given as values (extractors, seeding, tests). */
  async ingestValues(
    values: unknown[],
    origin: Origin = { origin: 'values', kind: 'values' },
    options: { deferStats?: boolean } = {},
  ): Promise<IngestSummary> {
    return this.ingestParsed(
      values.map((value, i) => ({ number: i + 1, parsed: checkFact(value) })),
      origin,
      options,
    );
  }

  /**
   * A pushed batch (`POST /admin/facts`): JSON Lines, or a JSON array of facts, of at
   * most MAX_PUSH_FACTS facts, stored in one transaction. Bad lines are listed by
   * number and skipped; with `strict`, or when no line is a fact, the batch is
   * refused with 422 and nothing is written.
   */
  async ingestBatch(
    text: string,
    origin: Origin,
    options: { strict?: boolean; jsonLines?: boolean } = {},
  ): Promise<IngestSummary> {
    const lines = parseFactBatch(text, options.jsonLines);
    const bad = lines.filter((line) => 'errors' in line.parsed).length;
    if (lines.length === 0 || bad === lines.length || (options.strict && bad > 0)) {
      throw new FactBatchError(lines);
    }
    return this.ingestParsed(lines, origin);
  }

  private async ingestParsed(
    lines: { number: number; parsed: ParsedLine }[],
    origin: Origin,
    options: { deferStats?: boolean } = {},
  ): Promise<IngestSummary> {
    const facts: FactDto[] = [];
    const rejected: RejectedLine[] = [];
    let droppedSources = 0;
    for (const { number, parsed } of lines) {
      if ('errors' in parsed) rejected.push({ line: number, errors: parsed.errors });
      else {
        facts.push(parsed.fact);
        droppedSources += parsed.droppedSources;
      }
    }
    const result = await this.ingestFacts(facts, origin);
    if (result.added + result.merged > 0 && !options.deferStats) {
      await this.statistics.refreshStats();
    }
    return { ...result, rejected, droppedSources, refused: false };
  }

  /** After ingests with `deferStats`: the term statistics that ranking weighs terms by. */
  refreshStats(): Promise<void> {
    return this.statistics.refreshStats();
  }

  private async ingestFacts(facts: FactDto[], origin: Origin, vectors?: VectorFile) {
    const all = facts.map(toNewFact);
    // A retracted fact stays out, from whichever path it comes again.
    const retracted = await this.retractions.retractedKeys([
      ...new Set(all.map((f) => f.dedupKey)),
    ]);
    const kept = all.filter((fact) => !retracted.has(fact.dedupKey));
    const unique = [...mergeDuplicates(kept).values()];
    const known = await this.facts.existingKeys(unique.map((fact) => fact.dedupKey));
    const ready = await this.withVectors(unique, known, vectors);
    const stored = ready.length ? await this.facts.upsert(ready, origin) : { added: 0, merged: 0 };
    // A repeat inside the batch merged into its first copy: count it, so that added,
    // merged, retracted and rejected add up to the lines read.
    return {
      added: stored.added,
      merged: stored.merged + kept.length - unique.length,
      retracted: all.length - kept.length,
    };
  }

  /**
   * Known facts only merge their sources: their stored vector stays. A new fact takes
   * its vector from the file beside the facts, or else from the encoder.
   */
  private async withVectors(
    facts: NewFact<PendingVector>[],
    known: Set<string>,
    file?: VectorFile,
  ): Promise<ReadyFact[]> {
    const stored = facts
      .filter((fact) => known.has(fact.dedupKey))
      .map((fact): ReadyFact => ({ ...fact, embedding: { kind: 'stored' } }));
    const fresh = facts.filter((fact) => !known.has(fact.dedupKey));
    const fromFile = fresh.map((fact) => file?.get(fact.question));
    const embedded = await this.embed(fresh.filter((_, i) => !fromFile[i]));
    let next = 0;
    const embeddedFacts = fresh.map((fact, i): ReadyFact => ({
      ...fact,
      embedding: { kind: 'embedded', vector: fromFile[i] ?? embedded[next++] },
    }));
    // `upsert` keeps the order of each kind; the mix of the two does not matter.
    return [...embeddedFacts, ...stored];
  }

  /** The questions' vectors, one for each, from the encoder. */
  private async embed(facts: NewFact[]): Promise<Float32Array[]> {
    const vectors = await this.embedder.embed(facts.map((fact) => fact.question));
    // A short answer from the encoder fails the batch, rather than store facts without.
    if (vectors.length !== facts.length || vectors.some((vector) => !vector)) {
      throw new EmbeddingError(
        `the encoder returned ${vectors.length} vectors for ${facts.length} texts`,
      );
    }
    return vectors;
  }
}

type PendingVector = Extract<FactVector, { kind: 'pending' }>;

function toNewFact(fact: FactDto): NewFact<PendingVector> {
  return {
    question: fact.question.trim(),
    answer: fact.answer.trim(),
    trueBy: fact.true_by,
    sources: [...new Set(fact.sources)],
    dedupKey: dedupKey(fact),
    embedding: { kind: 'pending' },
  };
}

function mergeDuplicates<F extends NewFact>(facts: F[]): Map<string, F> {
  const byKey = new Map<string, F>();
  for (const fact of facts) {
    const seen = byKey.get(fact.dedupKey);
    if (seen) seen.sources = [...new Set([...seen.sources, ...fact.sources])];
    else byKey.set(fact.dedupKey, fact);
  }
  return byKey;
}

async function rejectedLines(path: string): Promise<RejectedLine[]> {
  const rejected: RejectedLine[] = [];
  for await (const { number, parsed } of readFactLines(path)) {
    if ('errors' in parsed) rejected.push({ line: number, errors: parsed.errors });
  }
  return rejected;
}
