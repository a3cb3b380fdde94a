/** The current time, as a provider so that tests can move across a month boundary. */
export class Clock {
  now(): Date {
    return new Date();
  }
}

/** The first day of `at`'s calendar month in UTC, as `YYYY-MM-01`. */
export function monthOf(at: Date): string {
  return at.toISOString().slice(0, 7) + '-01';
}

/** Seconds from `at` to the start of the next UTC month, when the quota resets. */
export function secondsToNextMonth(at: Date): number {
  const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
  return Math.ceil((next - at.getTime()) / 1000);
}
