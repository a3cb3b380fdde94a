import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../common/problem';
import { EMBEDDER, Embedder, EmbeddingError } from '../embeddings/embedder';
import { FactsRepository, StoredFact } from './facts.repository';
import { RetractedFact, Retraction, RetractionsRepository } from './retractions.repository';
import { StatisticsRepository } from './statistics.repository';

export class FactNotFoundError extends DomainError {
  constructor(id: string) {
    super('fact-not-found', 'No such fact', `no fact ${id}`);
  }
}

export class FactRetractedError extends DomainError {
  constructor(id: string) {
    super('fact-retracted', 'Fact already retracted', `fact ${id} is already retracted`);
  }
}

export class FactNotRetractedError extends DomainError {
  constructor(id: string) {
    super('fact-not-retracted', 'Fact not retracted', `fact ${id} is not retracted`);
  }
}

/** A stored fact, live or retracted (then with why, when and by whom). */
export interface FactRecord extends StoredFact {
  retraction: Retraction | null;
}

/** A fact id as the store takes it: a bigint, written in decimal. */
const FACT_ID = /^[1-9]\d{0,17}$/;

/**
 * Taking facts back and putting them back, for operators. A retracted fact is never
 * returned by a search, and ingest does not bring it back; only a restore does.
 */
@Injectable()
export class RetractionsService {
  constructor(
    private readonly facts: FactsRepository,
    private readonly retractions: RetractionsRepository,
    private readonly statistics: StatisticsRepository,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
  ) {}

  /** A live or retracted fact with its provenance. */
  async show(id: string): Promise<FactRecord> {
    if (!FACT_ID.test(id)) throw new FactNotFoundError(id);
    const live = await this.facts.show(id);
    if (live) return { ...live, retraction: null };
    const retracted = await this.retractions.show(id);
    if (!retracted) throw new FactNotFoundError(id);
    return withoutKey(retracted);
  }

  /** Facts whose question contains `text`: live ones first, then retracted ones. */
  async find(text: string, limit: number, state: 'live' | 'retracted' | 'all' = 'all') {
    const live: FactRecord[] =
      state === 'retracted'
        ? []
        : (await this.facts.find(text, limit)).map((fact) => ({ ...fact, retraction: null }));
    const retracted: FactRecord[] =
      state === 'live' || live.length >= limit
        ? []
        : (await this.retractions.find(text, limit - live.length)).map(withoutKey);
    return [...live, ...retracted];
  }

  /** Takes a fact back; `by` names the admin credential (or `cli`). */
  async retract(id: string, reason: string, by: string): Promise<FactRecord> {
    if (!FACT_ID.test(id)) throw new FactNotFoundError(id);
    if (!(await this.retractions.retract(id, reason, by))) throw await this.refusal(id, 'retract');
    await this.statistics.countMonths();
    return this.show(id);
  }

  /** Puts a retracted fact back as it was, under the same id. */
  async restore(id: string): Promise<FactRecord> {
    if (!FACT_ID.test(id)) throw new FactNotFoundError(id);
    const retracted = await this.retractions.show(id);
    if (!retracted) throw await this.refusal(id, 'restore');
    const [vector] = await this.embedder.embed([retracted.question]);
    if (!vector) throw new EmbeddingError('the encoder returned no vector');
    if (!(await this.retractions.restore(id, vector))) throw await this.refusal(id, 'restore');
    await this.statistics.countMonths();
    return this.show(id);
  }

  private async refusal(id: string, action: 'retract' | 'restore'): Promise<DomainError> {
    const state = await this.retractions.state(id);
    if (state === 'retracted' && action === 'retract') return new FactRetractedError(id);
    if (state === 'live' && action === 'restore') return new FactNotRetractedError(id);
    return new FactNotFoundError(id);
  }
}

/** The identity hash is the store's business, not the operator's. */
function withoutKey(fact: RetractedFact): FactRecord {
  const { dedup_key, ...rest } = fact;
  void dedup_key;
  return rest;
}
