import { existsSync } from 'node:fs';
import { projectPath } from '../config/config';
import { UsageError } from './context';

/** The options of `bench` (declared in main.ts; bench/README.md). */
export interface BenchOptions {
  facts: string;
  requests: string;
  concurrency: string;
  seed: string;
  queries: string;
  peer: boolean;
  keep?: boolean;
  cache: string;
  out?: string;
  json?: boolean;
  /** Also serve the corpus from this PostgreSQL (an empty database), measured interleaved. */
  databaseUrl?: string;
  /** False: leave out the embedded store (only with databaseUrl). */
  embedded?: boolean;
}

/**
 * `bench`: its code is in tools/bench, because it needs the development dependencies
 * (LanceDB for the peer); the service neither compiles nor imports it. `npm run build`
 * compiles it (tools/tsconfig.json) into dist/tools beside dist/src, so it shares this
 * process's modules (a UsageError it throws is main's UsageError).
 */
export async function benchCommand(options: BenchOptions): Promise<number> {
  const entry = projectPath('dist', 'tools', 'bench', 'bench.command.js');
  if (!existsSync(entry)) {
    throw new UsageError(
      'bench needs the development tools: run `npm ci` (or `npm run build`) in a clone of the repository',
    );
  }
  const tools = (await import(entry)) as { benchCommand(options: BenchOptions): Promise<number> };
  return tools.benchCommand(options);
}
