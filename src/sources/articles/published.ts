import * as chrono from 'chrono-node';
import { parseInstant } from '../../common/dates';

export interface Published {
  at: Date;
  /** The calendar day as the publisher wrote it (in its own time zone). */
  day: string;
}

// Feeds and pages write dates in their own language ("Seg, 24 Set 2018") and in
// shapes no RFC knows ("Sat, Dec 16 2023 02:02:33 PM"); chrono reads them.
const LOCALES = [chrono.en, chrono.pt, chrono.es, chrono.fr, chrono.de, chrono.it, chrono.nl];

/**
 * A publication date from metadata: ISO 8601, RFC 822 or a written date in one of
 * a few languages. Undefined unless year, month and day are all stated: a date
 * that has to be guessed is no date.
 */
export function parsePublished(value: string | undefined | null): Published | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  const iso = parseInstant(text);
  if (iso) return { at: iso, day: text.slice(0, 10) };
  for (const locale of LOCALES) {
    const [result] = locale.strict.parse(text, { instant: new Date(), timezone: 0 });
    const start = result?.start;
    if (!start || !['year', 'month', 'day'].every((part) => start.isCertain(part as 'day'))) {
      continue;
    }
    const day = [start.get('year'), start.get('month'), start.get('day')]
      .map((n, i) => String(n).padStart(i === 0 ? 4 : 2, '0'))
      .join('-');
    return { at: start.date(), day };
  }
  return undefined;
}
