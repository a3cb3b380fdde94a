import { readFileSync } from 'node:fs';
import { UsageError } from './context';

export interface BenchOptions {
  url: string;
  key: string;
  queries: string;
  requests: string;
}

/**
 * Latency of POST /v1/search against a running server, one request at a time, with
 * the questions (and windows) of a queries file. Prints p50/p95/p99 and throughput.
 */
export async function benchCommand(options: BenchOptions): Promise<number> {
  const total = Number(options.requests);
  if (!Number.isInteger(total) || total < 1)
    throw new UsageError('--requests must be a positive integer');
  const bodies = readFileSync(options.queries, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      const { query, true_by_max } = JSON.parse(line) as { query: string; true_by_max?: string };
      return JSON.stringify({ query, true_by_max });
    });
  const call = async (body: string) => {
    const response = await fetch(`${options.url.replace(/\/+$/, '')}/v1/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${options.key}` },
      body,
    });
    if (response.status !== 200)
      throw new UsageError(`server answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  };
  // Warm-up (JIT, WASM) with texts the timed run does not repeat, so no vector is cached.
  for (const body of bodies.slice(0, 20))
    await call(body.replace('"query":"', '"query":"warm-up: '));
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    // Distinct texts beyond the file's length defeat the query-vector cache.
    const body =
      i < bodies.length
        ? bodies[i]
        : bodies[i % bodies.length].replace('"query":"', `"query":"(${i}) `);
    const t0 = performance.now();
    await call(body);
    times.push(performance.now() - t0);
  }
  const seconds = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  const at = (q: number) =>
    times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1);
  console.log(
    `requests ${total}  p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  p99 ${at(0.99)} ms  ${(total / seconds).toFixed(1)} req/s`,
  );
  return 0;
}
