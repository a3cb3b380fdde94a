import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { hasControlCharacter, normaliseEmail } from '../accounts/email';
import type { PlanName } from '../accounts/plans';
import { sameSecret, sha256 } from '../common/constant-time';
import { DomainError } from '../common/problem';
import { ApiKey } from './api-key.entity';
import { ApiKeysRepository, StoredKey } from './api-keys.repository';

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

export class InvalidKeyNameError extends DomainError {
  constructor(detail: string) {
    super('invalid-key-name', 'Key name not accepted', detail);
  }
}

export class KeyNotFoundError extends DomainError {
  constructor(detail: string) {
    super('key-not-found', 'No such key', detail);
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
  constructor(private readonly keys: ApiKeysRepository) {}

  /** Creates a key for `email`, creating the account on first use. */
  async create(email: string, name = ''): Promise<CreatedKey> {
    const address = normaliseEmail(email);
    const { key, stored } = newKey(name);
    await this.keys.insertForEmail(address, stored);
    return { key, prefix: stored.prefix, email: address };
  }

  /** Creates a key for a signed-in account, which must name it. */
  async createFor(account: { id: string; email: string }, name: string): Promise<CreatedKey> {
    if (!name) throw new InvalidKeyNameError('Give the key a name, such as where it is used.');
    if (name.length > MAX_KEY_NAME) {
      throw new InvalidKeyNameError(`Use at most ${MAX_KEY_NAME} characters.`);
    }
    const { key, stored } = newKey(name);
    await this.keys.insert({ ...stored, accountId: account.id });
    return { key, prefix: stored.prefix, email: account.email };
  }

  /**
   * The active key matching `token` and its account's plan, or undefined. One
   * statement on every authenticated call: the lookup, and the `last_used_at` stamp at
   * most once a minute per key, so a busy key does not add a write to every call.
   */
  async verify(token: string): Promise<VerifiedKey | undefined> {
    if (!KEY_SHAPE.test(token)) return undefined;
    const hash = sha256(token);
    const found = await this.keys.findActive(hash);
    // The lookup is by hash already; the constant-time compare guards against any
    // collation or padding surprise turning a near-miss into a match.
    if (!found || !sameSecret(hash, found.keyHash)) return undefined;
    return { id: found.id, accountId: found.accountId, plan: found.plan };
  }

  /** Revokes the key given in full, or by its displayed prefix when that is unambiguous. */
  async revoke(keyOrPrefix: string): Promise<ApiKey> {
    const matches = KEY_SHAPE.test(keyOrPrefix)
      ? await this.keys.findByHash(sha256(keyOrPrefix))
      : await this.keys.findByPrefix(keyOrPrefix);
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
    const key = /^\d{1,18}$/.test(id) ? await this.keys.findById(id, accountId) : null;
    if (!key) throw new KeyNotFoundError(`no key with id ${id}`);
    return this.revokeKey(key);
  }

  private async revokeKey(key: ApiKey): Promise<ApiKey> {
    if (!key.revokedAt) await this.keys.revoke(key.id, new Date());
    return { ...key, revokedAt: key.revokedAt ?? new Date() };
  }

  async listFor(accountId: string): Promise<ApiKey[]> {
    return this.keys.listForAccount(accountId);
  }

  async list(email: string): Promise<ApiKey[]> {
    return this.keys.listForEmail(normaliseEmail(email));
  }
}

/** A fresh secret and what is stored of it; the name may hold no control characters. */
function newKey(name: string): { key: string; stored: Omit<StoredKey, 'accountId'> } {
  if (hasControlCharacter(name)) throw new InvalidKeyNameError('Use no control characters.');
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, stored: { name, prefix: key.slice(0, DISPLAY_LENGTH), keyHash: sha256(key) } };
}
