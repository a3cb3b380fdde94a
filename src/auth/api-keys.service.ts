import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, Repository } from 'typeorm';
import { sameSecret } from '../common/constant-time';
import { ProblemError } from '../common/problem';
import { Account } from './account.entity';
import { ApiKey } from './api-key.entity';
import type { PlanName } from '../billing/plans';

export const KEY_PREFIX = 'ff_live_';
const DISPLAY_LENGTH = KEY_PREFIX.length + 8;
const KEY_SHAPE = /^ff_live_[A-Za-z0-9_-]{43}$/;

export interface CreatedKey {
  /** The secret; shown once, never stored. */
  key: string;
  prefix: string;
  email: string;
}

export const MAX_KEY_NAME = 100;

export class InvalidKeyNameError extends ProblemError {
  constructor(detail: string) {
    super(422, 'invalid-key-name', 'Key name not accepted', detail);
  }
}

export class KeyNotFoundError extends ProblemError {
  constructor(detail: string) {
    super(404, 'key-not-found', 'No such key', detail);
  }
}

export interface VerifiedKey {
  id: string;
  accountId: string;
  plan: PlanName;
}

/** Issues, verifies and revokes API keys. Only a key's SHA-256 is ever stored. */
@Injectable()
export class ApiKeysService {
  private readonly keys: Repository<ApiKey>;

  constructor(private readonly db: DataSource) {
    this.keys = db.getRepository(ApiKey);
  }

  /** Creates a key for `email`, creating the account on first use. */
  async create(email: string, name = ''): Promise<CreatedKey> {
    const address = normaliseEmail(email);
    return this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO accounts (email) VALUES ($1) ON CONFLICT ON CONSTRAINT accounts_email DO NOTHING`,
        [address],
      );
      const account = await tx.getRepository(Account).findOneByOrFail({ email: address });
      return this.issue(tx.getRepository(ApiKey), account, name);
    });
  }

  /** Creates a key for a signed-in account, which must name it. */
  async createFor(account: { id: string; email: string }, name: string): Promise<CreatedKey> {
    if (!name) throw new InvalidKeyNameError('Give the key a name, such as where it is used.');
    if (name.length > MAX_KEY_NAME) {
      throw new InvalidKeyNameError(`Use at most ${MAX_KEY_NAME} characters.`);
    }
    return this.issue(this.keys, account, name);
  }

  private async issue(
    keys: Repository<ApiKey>,
    account: { id: string; email: string },
    name: string,
  ): Promise<CreatedKey> {
    if (CONTROL.test(name)) throw new InvalidKeyNameError('Use no control characters.');
    const key = KEY_PREFIX + randomBytes(32).toString('base64url');
    const prefix = key.slice(0, DISPLAY_LENGTH);
    await keys.insert({ accountId: account.id, name, prefix, keyHash: sha256(key) });
    return { key, prefix, email: account.email };
  }

  /**
   * The active key matching `token` and its account's plan, or undefined. One
   * statement on every authenticated call: the lookup, and the `last_used_at` stamp at
   * most once a minute per key, so a busy key does not add a write to every call.
   */
  async verify(token: string): Promise<VerifiedKey | undefined> {
    if (!KEY_SHAPE.test(token)) return undefined;
    const hash = sha256(token);
    const [found] = await this.db.query<(VerifiedKey & { keyHash: string })[]>(
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
    // The lookup is by hash already; the constant-time compare guards against any
    // collation or padding surprise turning a near-miss into a match.
    if (!found || !sameSecret(hash, found.keyHash)) return undefined;
    return { id: found.id, accountId: found.accountId, plan: found.plan };
  }

  /** Revokes the key given in full, or by its displayed prefix when that is unambiguous. */
  async revoke(keyOrPrefix: string): Promise<ApiKey> {
    const matches = KEY_SHAPE.test(keyOrPrefix)
      ? await this.keys.findBy({ keyHash: sha256(keyOrPrefix) })
      : await this.keys.findBy({ prefix: keyOrPrefix });
    if (matches.length !== 1) {
      throw new KeyNotFoundError(
        matches.length
          ? `prefix ${keyOrPrefix} matches ${matches.length} keys; give the whole key`
          : 'no such key',
      );
    }
    return this.revokeKey(matches[0]);
  }

  /**
   * Revokes the key with this id (as the admin API and the dashboard list it). With
   * `accountId`, only that account's keys: another account's id is as unknown as a
   * missing one.
   */
  async revokeById(id: string, accountId?: string): Promise<ApiKey> {
    const key = /^\d{1,18}$/.test(id)
      ? await this.keys.findOneBy(accountId === undefined ? { id } : { id, accountId })
      : null;
    if (!key) throw new KeyNotFoundError(`no key with id ${id}`);
    return this.revokeKey(key);
  }

  private async revokeKey(key: ApiKey): Promise<ApiKey> {
    if (!key.revokedAt) await this.keys.update({ id: key.id }, { revokedAt: new Date() });
    return { ...key, revokedAt: key.revokedAt ?? new Date() };
  }

  async listFor(accountId: string): Promise<ApiKey[]> {
    return this.keys.find({ where: { accountId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  async list(email: string): Promise<ApiKey[]> {
    return this.keys.find({
      where: { account: { email: normaliseEmail(email) } },
      order: { createdAt: 'ASC' },
    });
  }
}

export class InvalidEmailError extends ProblemError {
  constructor(detail: string) {
    super(422, 'invalid-email', 'Invalid email address', detail);
  }
}

// Control characters (U+0000 among them, which PostgreSQL text cannot hold) are in no
// address and no name a person types.
const CONTROL = /\p{Cc}/u;

export function normaliseEmail(email: string): string {
  const address = email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address) || CONTROL.test(address))
    throw new InvalidEmailError(`not an email address: ${email}`);
  return address;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
