/** One bar of the usage chart, in the chart's own coordinates. */
export interface Bar {
  day: string;
  calls: number;
  x: number;
  y: number;
  height: number;
}

export interface UsageChart {
  width: number;
  height: number;
  /** Room around the bars for the value and day labels. */
  viewBox: string;
  barWidth: number;
  bars: Bar[];
  /** The value of the top grid line. */
  max: number;
  /** Day labels under the first, middle and last bars. */
  labels: { x: number; text: string }[];
}

const WIDTH = 600;
const HEIGHT = 160;
const GAP = 4;

/**
 * Calls per day over the `days` days ending `today` (UTC), as SVG bars: drawn on the
 * server, so the page needs no charting script.
 */
export function usageChart(
  daily: { day: string; calls: number }[],
  today: Date,
  days = 30,
): UsageChart {
  const counts = new Map(daily.map((row) => [row.day, row.calls]));
  const end = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  const slot = WIDTH / days;
  const series = Array.from({ length: days }, (_, i) => {
    const day = new Date(end - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10);
    return { day, calls: counts.get(day) ?? 0 };
  });
  const max = niceCeiling(Math.max(...series.map((point) => point.calls)));
  const bars = series.map(({ day, calls }, i) => {
    // A day with calls gets at least a sliver, so that it is never mistaken for none.
    const height = calls ? Math.max(2, Math.round((calls / max) * HEIGHT)) : 0;
    return { day, calls, x: round(i * slot + GAP / 2), y: HEIGHT - height, height };
  });
  const labelAt = (i: number) => ({
    x: round(i * slot + slot / 2),
    text: new Date(`${series[i].day}T00:00:00Z`).toLocaleDateString('en-US', {
      month: 'short',
      day: 'numeric',
      timeZone: 'UTC',
    }),
  });
  return {
    width: WIDTH,
    height: HEIGHT,
    viewBox: `-48 -12 ${WIDTH + 72} ${HEIGHT + 40}`,
    barWidth: round(slot - GAP),
    bars,
    max,
    labels: [labelAt(0), labelAt(Math.floor(days / 2)), labelAt(days - 1)],
  };
}

/** The smallest of 1, 2, 5 × 10^n that is at least `value` (and at least 10). */
function niceCeiling(value: number): number {
  let step = 10;
  for (;;) {
    for (const factor of [1, 2, 5]) if (step * factor >= value) return step * factor;
    step *= 10;
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
