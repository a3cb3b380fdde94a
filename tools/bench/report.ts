import type { LoadResult } from './load';
import { EVAL_K, type Metrics } from '../../src/facts/evaluation';

/** What the bench measured of one engine: its build, its quality and each load level. */
export interface EngineReport {
  engine: string;
  build: {
    facts: number;
    ingestSeconds: number;
    factsPerSecond: number;
    indexSeconds: number;
    diskBytes: number;
    /** Start of the serving process (or re-open of the table) to its first answer. */
    openSeconds: number;
    peakRssBytes: { ingest: number | null; serve: number | null };
  };
  quality: Metrics;
  load: LoadResult[];
}

export function printTables(engines: EngineReport[], levels: number[], queries: number): void {
  const mb = (bytes: number | null) => (bytes === null ? '-' : (bytes / 2 ** 20).toFixed(0));
  const f = (n: number | null, digits = 1) =>
    n === null || Number.isNaN(n) ? '-' : n.toFixed(digits);
  const rows: string[][] = [
    ['engine', 'facts', 'ingest/s', 'index s', 'disk MB', 'open s', 'RSS ingest', 'RSS serve'],
    ...engines.map((e) => [
      e.engine,
      String(e.build.facts),
      f(e.build.factsPerSecond, 0),
      f(e.build.indexSeconds),
      mb(e.build.diskBytes),
      f(e.build.openSeconds, 2),
      mb(e.build.peakRssBytes.ingest),
      mb(e.build.peakRssBytes.serve),
    ]),
  ];
  console.log(table(rows));
  const search: string[][] = [['engine', 'conc', 'p50 ms', 'p95 ms', 'p99 ms', 'req/s']];
  for (const e of engines) {
    e.load.forEach((run, i) =>
      search.push([
        e.engine,
        String(levels[i]),
        f(run.p50),
        f(run.p95),
        f(run.p99),
        f(run.perSecond),
      ]),
    );
  }
  console.log('\n' + table(search));
  // Where the tail comes from, one at a time: what each kind of date window costs.
  const windows: string[][] = [
    ['engine', 'c=1 window', 'requests', 'p50 ms', 'p95 ms', 'max ms', 'in slowest 1%'],
  ];
  for (const e of engines) {
    for (const [window, run] of Object.entries(e.load[0]?.byWindow ?? {}).sort()) {
      windows.push([
        e.engine,
        window,
        String(run.requests),
        f(run.p50),
        f(run.p95),
        f(run.max),
        String(run.slowest),
      ]);
    }
  }
  console.log('\n' + table(windows));
  const quality: string[][] = [
    ['engine', 'recall@1', 'recall@5', 'recall@10', 'MRR', 'first', 'outside'],
  ];
  for (const e of engines) {
    const q = e.quality;
    quality.push([
      e.engine,
      f(q.recallAt1, 3),
      f(q.recallAt5, 3),
      f(q.recallAt10, 3),
      f(q.mrr, 3),
      f(q.firstCorrect, 3),
      String(q.outsideWindow),
    ]);
  }
  console.log(`\n${queries} dev queries, k ${EVAL_K}, against distractors:\n` + table(quality));
  if (engines.length > 1) {
    // Each other engine against the embedded store, measured in the same run.
    const [ours, ...others] = engines;
    const ratio = (a: number, b: number) => (b ? (a / b).toFixed(2) : '-');
    const ratios: string[][] = [
      [
        '÷ freshfacts (embedded)',
        ...levels.flatMap((c) => [`p50 c=${c}`, `p99 c=${c}`, `req/s c=${c}`]),
        'recall@10',
      ],
    ];
    for (const other of others) {
      ratios.push([
        other.engine,
        ...levels.flatMap((_, i) => [
          ratio(other.load[i].p50, ours.load[i].p50),
          ratio(other.load[i].p99, ours.load[i].p99),
          ratio(other.load[i].perSecond, ours.load[i].perSecond),
        ]),
        ratio(other.quality.recallAt10, ours.quality.recallAt10),
      ]);
    }
    console.log('\n' + table(ratios));
  }
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  return rows
    .map((row) =>
      row
        .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
        .join('  '),
    )
    .join('\n');
}
