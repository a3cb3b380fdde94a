import { ApiKeysService } from '../auth/api-keys.service';
import { withContext } from './context';

export async function createKey(options: { email: string; name?: string }): Promise<number> {
  const created = await withContext((context) =>
    context.get(ApiKeysService).create(options.email, options.name),
  );
  console.error(`API key for ${created.email} (shown once; only its hash is stored):`);
  console.log(created.key);
  return 0;
}

export async function revokeKey(keyOrPrefix: string): Promise<number> {
  const key = await withContext((context) => context.get(ApiKeysService).revoke(keyOrPrefix));
  console.log(`revoked ${key.prefix}… (created ${key.createdAt.toISOString()})`);
  return 0;
}

export async function listKeys(options: { email: string }): Promise<number> {
  const keys = await withContext((context) => context.get(ApiKeysService).list(options.email));
  for (const key of keys) {
    const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active';
    const used = key.lastUsedAt ? key.lastUsedAt.toISOString() : 'never';
    console.log(
      `${key.prefix}…  ${key.name || '-'}  created ${key.createdAt.toISOString()}  last used ${used}  ${state}`,
    );
  }
  return 0;
}
