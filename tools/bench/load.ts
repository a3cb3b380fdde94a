import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

/** What the bench asks of one load run: where, what, and how many at once. */
export interface LoadSpec {
  url: string;
  key?: string;
  /** JSON request bodies, sent in order; each is sent once. */
  bodies: string[];
  concurrency: number;
  /** Requests sent first and not timed (JIT, caches, the WASM tier-up). */
  warmup: number;
}

export interface LoadResult {
  requests: number;
  concurrency: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** The same figures per kind of date window, and how many of the slowest 1% each had. */
  byWindow: Record<string, ReturnType<typeof summarise> & { slowest: number }>;
  /** Response bodies of the timed requests, when asked for (quality is scored on them). */
  bodies?: unknown[];
}

/**
 * Sends every body to POST {url} with at most `concurrency` in flight, over kept-alive
 * loopback connections, and measures each from write to the last byte read. Runs in
 * its own process (see `main` below) so the client never shares an event loop or a
 * core's time slice accounting with the server it measures.
 */
export async function runLoad(spec: LoadSpec, keepBodies = false): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: spec.concurrency });
  const url = new URL(spec.url);
  const post = (body: string) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            ...(spec.key ? { authorization: `Bearer ${spec.key}` } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const send = async (body: string) => {
    const answer = await post(body);
    if (answer.status !== 200)
      throw new Error(`${spec.url} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    return answer.text;
  };
  // `concurrency` requests in flight until `bodies` are all sent.
  const drive = (bodies: string[], each: (i: number, text: string, ms: number) => void) => {
    let next = 0;
    return Promise.all(
      Array.from({ length: spec.concurrency }, async () => {
        while (next < bodies.length) {
          const i = next++;
          const t0 = performance.now();
          const text = await send(bodies[i]);
          each(i, text, performance.now() - t0);
        }
      }),
    );
  };
  try {
    // At the level's concurrency, so that the warm-up reaches as many of a server's
    // connections (and the embedded store's queue) as the timed requests will.
    await drive(spec.bodies.slice(0, spec.warmup), () => undefined);
    const timed = spec.bodies.slice(spec.warmup);
    const times = new Array<number>(timed.length);
    const answers = new Array<unknown>(timed.length);
    const started = performance.now();
    await drive(timed, (i, text, ms) => {
      times[i] = ms;
      if (keepBodies) answers[i] = JSON.parse(text);
    });
    const seconds = (performance.now() - started) / 1000;
    return {
      ...summarise(times, seconds),
      concurrency: spec.concurrency,
      byWindow: byWindow(timed, times, seconds),
      ...(keepBodies ? { bodies: answers } : {}),
    };
  } finally {
    agent.destroy();
  }
}

/** Latency percentiles (ms, nearest rank) and throughput of one run. */
export function summarise(times: number[], seconds: number) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? NaN;
  return {
    requests: times.length,
    seconds,
    perSecond: times.length / seconds,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

/**
 * Where the tail comes from: a run's requests grouped by their date window (none, an
 * upper bound, or a window's length in days).
 */
export function byWindow(bodies: string[], times: number[], seconds: number) {
  const bar = [...times].sort((a, b) => b - a)[Math.floor(times.length / 100)] ?? Infinity;
  const groups = new Map<string, number[]>();
  bodies.forEach((body, i) => {
    const { true_by_min: min, true_by_max: max } = JSON.parse(body) as Record<string, unknown>;
    const window =
      typeof min === 'string' && typeof max === 'string'
        ? `${Math.round((Date.parse(max) - Date.parse(min)) / 86_400_000)} days`
        : max !== undefined
          ? 'upper bound'
          : min !== undefined
            ? 'lower bound'
            : 'no dates';
    groups.set(window, [...(groups.get(window) ?? []), times[i]]);
  });
  return Object.fromEntries(
    [...groups].map(([window, group]) => [
      window,
      { ...summarise(group, seconds), slowest: group.filter((t) => t > bar).length },
    ]),
  );
}

/** `node load.js SPEC.json [--bodies]`: runs the load and prints the result as JSON. */
async function main(): Promise<void> {
  const spec = JSON.parse(readFileSync(process.argv[2], 'utf8')) as LoadSpec;
  const result = await runLoad(spec, process.argv.includes('--bodies'));
  process.stdout.write(JSON.stringify(result));
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
