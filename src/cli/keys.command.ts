import type { CreatedKeyDto, KeyDto } from '../admin/admin.dto';
import type { ApiKey } from '../auth/api-key.entity';
import { ApiKeysService } from '../auth/api-keys.service';
import { AdminClient, auditCli, offlineOrThroughServer, RemoteProblemError } from './admin-client';

type ShownKey = Pick<ApiKey, 'prefix' | 'name' | 'createdAt' | 'lastUsedAt' | 'revokedAt'>;

export async function createKey(options: { email: string; name?: string }): Promise<number> {
  const created = await offlineOrThroughServer(
    async (context) => {
      const key = await context.get(ApiKeysService).create(options.email, options.name);
      await auditCli(context, 'key.create', key.email, { prefix: key.prefix });
      return key;
    },
    (admin) => createThroughServer(admin, options),
  );
  console.error(`API key for ${created.email} (shown once; only its hash is stored):`);
  console.log(created.key);
  return 0;
}

/** As offline, the account is made when it is new. */
async function createThroughServer(
  admin: AdminClient,
  options: { email: string; name?: string },
): Promise<CreatedKeyDto> {
  const path = `/admin/accounts/${encodeURIComponent(options.email)}/keys`;
  try {
    return await admin.call<CreatedKeyDto>('POST', path, { name: options.name });
  } catch (err) {
    if (!(err instanceof RemoteProblemError) || err.slug !== 'account-not-found') throw err;
    await admin.call('POST', '/admin/accounts', { email: options.email });
    return admin.call<CreatedKeyDto>('POST', path, { name: options.name });
  }
}

export async function revokeKey(keyOrPrefix: string): Promise<number> {
  const key = await offlineOrThroughServer(
    async (context) => {
      const revoked = await context.get(ApiKeysService).revoke(keyOrPrefix);
      await auditCli(context, 'key.revoke', revoked.id, { prefix: revoked.prefix });
      return revoked;
    },
    async (admin) =>
      shown(await admin.call<KeyDto>('POST', '/admin/keys/revoke', { key: keyOrPrefix })),
  );
  console.log(`revoked ${key.prefix}… (created ${key.createdAt.toISOString()})`);
  return 0;
}

export async function listKeys(options: { email: string }): Promise<number> {
  const keys: ShownKey[] = await offlineOrThroughServer(
    (context) => context.get(ApiKeysService).list(options.email),
    async (admin) => {
      const path = `/admin/accounts/${encodeURIComponent(options.email)}/keys`;
      try {
        return (await admin.call<KeyDto[]>('GET', path)).map(shown);
      } catch (err) {
        // Offline, an address without an account simply has no keys.
        if (err instanceof RemoteProblemError && err.slug === 'account-not-found') return [];
        throw err;
      }
    },
  );
  for (const key of keys) {
    const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active';
    const used = key.lastUsedAt ? key.lastUsedAt.toISOString() : 'never';
    console.log(
      `${key.prefix}…  ${key.name || '-'}  created ${key.createdAt.toISOString()}  last used ${used}  ${state}`,
    );
  }
  return 0;
}

function shown(key: KeyDto): ShownKey {
  const date = (text: string | null) => (text === null ? null : new Date(text));
  return {
    prefix: key.prefix,
    name: key.name,
    createdAt: new Date(key.created_at),
    lastUsedAt: date(key.last_used_at),
    revokedAt: date(key.revoked_at),
  };
}
