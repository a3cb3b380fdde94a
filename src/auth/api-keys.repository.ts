import { Injectable } from '@nestjs/common';
import { DataSource, Repository } from 'typeorm';
import { AccountsRepository } from '../accounts/accounts.repository';
import type { PlanName } from '../accounts/plans';
import { ApiKey } from './api-key.entity';

/** A key as stored: its SHA-256, never the secret. */
export type StoredKey = Pick<ApiKey, 'accountId' | 'name' | 'prefix' | 'keyHash'>;

/** An active key found by its hash, with its account's plan. */
export interface ActiveKey {
  id: string;
  accountId: string;
  keyHash: string;
  plan: PlanName;
}

/** The only code that speaks SQL to the api_keys table. */
@Injectable()
export class ApiKeysRepository {
  private readonly keys: Repository<ApiKey>;

  constructor(private readonly db: DataSource) {
    this.keys = db.getRepository(ApiKey);
  }

  async insert(key: StoredKey): Promise<void> {
    await this.keys.insert(key);
  }

  /** Inserts a key for the account of `email`, making the account first when there is none. */
  async insertForEmail(email: string, key: Omit<StoredKey, 'accountId'>): Promise<void> {
    await this.db.transaction(async (tx) => {
      const account = await AccountsRepository.within(tx).ensure(email);
      await tx.getRepository(ApiKey).insert({ ...key, accountId: account.id });
    });
  }

  /**
   * The active key with this hash and its account's plan. One statement on every
   * authenticated call: the lookup, and the `last_used_at` stamp at most once a minute
   * per key, so a busy key does not add a write to every call.
   */
  async findActive(hash: string): Promise<ActiveKey | undefined> {
    const [found] = await this.db.query<ActiveKey[]>(
      `WITH found AS (
         SELECT k.id::text, k.account_id::text AS "accountId", k.key_hash AS "keyHash", a.plan,
                k.last_used_at
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
         WHERE k.key_hash = $1 AND k.revoked_at IS NULL
       ), stamped AS (
         UPDATE api_keys SET last_used_at = now()
         WHERE id = (SELECT id::bigint FROM found)
           AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
       )
       SELECT id, "accountId", "keyHash", plan FROM found`,
      [hash],
    );
    return found;
  }

  findByHash(hash: string): Promise<ApiKey[]> {
    return this.keys.findBy({ keyHash: hash });
  }

  findByPrefix(prefix: string): Promise<ApiKey[]> {
    return this.keys.findBy({ prefix });
  }

  /** The key with this id; with `accountId`, only if it is that account's. */
  findById(id: string, accountId?: string): Promise<ApiKey | null> {
    return this.keys.findOneBy(accountId === undefined ? { id } : { id, accountId });
  }

  async revoke(id: string, at: Date): Promise<void> {
    await this.keys.update({ id }, { revokedAt: at });
  }

  /** An account's keys, newest first. */
  listForAccount(accountId: string): Promise<ApiKey[]> {
    return this.keys.find({ where: { accountId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  /** The keys of the account with this email, oldest first. */
  listForEmail(email: string): Promise<ApiKey[]> {
    return this.keys.find({ where: { account: { email } }, order: { createdAt: 'ASC' } });
  }
}
