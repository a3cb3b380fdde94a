import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { AccountsService } from '../../src/accounts/accounts.service';
import { withContext } from '../../src/cli/context';
import { buildConfig } from '../../src/config/config';
import { IngestService } from '../../src/facts/ingest.service';

export interface IngestSpec {
  corpus: string;
  email: string;
}

export interface IngestResult {
  added: number;
  rejected: number;
  seconds: number;
  indexSeconds: number;
  maxRssBytes: number;
  /** Size of the PostgreSQL database after the ingest; 0 for the embedded store. */
  databaseBytes: number;
  key: string;
}

/**
 * The bench's ingest, in a process of its own so that its peak RSS is the ingest's
 * alone: the real `IngestService` into the data folder of the environment, then a
 * paid-plan key for the load (the free tier would stop it at 1,000 calls).
 */
async function main(): Promise<void> {
  const spec = JSON.parse(readFileSync(process.argv[2], 'utf8')) as IngestSpec;
  const config = buildConfig(process.env);
  const result = await withContext(async (context) => {
    const started = performance.now();
    const summary = await context.get(IngestService).ingestFile(spec.corpus, { batchSize: 1000 });
    const seconds = (performance.now() - started) / 1000;
    const { key } = await context.get(ApiKeysService).create(spec.email, 'bench');
    await context.get(AccountsService).setPlan(spec.email, 'paid');
    const [{ bytes }] = config.databaseUrl
      ? await context
          .get(DataSource)
          .query<{ bytes: string }[]>(`SELECT pg_database_size(current_database()) AS bytes`)
      : [{ bytes: '0' }];
    return {
      added: summary.added,
      rejected: summary.rejected.length,
      seconds,
      indexSeconds: summary.indexSeconds ?? 0,
      databaseBytes: Number(bytes),
      key,
    };
  }, config);
  const output: IngestResult = { ...result, maxRssBytes: process.resourceUsage().maxRSS * 1024 };
  process.stdout.write(JSON.stringify(output));
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`ingest: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
