import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * The days a request or a fact may name, in UTC: four-digit years from 1, which both
 * PostgreSQL's `date` (it has no year 0) and `Date#toISOString` (no sign, four digits)
 * handle. An offset can move a datetime across either end, so the check is on the
 * instant after applying it.
 */
export const FIRST_DAY = '0001-01-01';
export const LAST_DAY = '9999-12-31';
const EARLIEST = Date.parse(`${FIRST_DAY}T00:00:00.000Z`);
const LATEST = Date.parse(`${LAST_DAY}T23:59:59.999Z`);

/** `YYYY-MM-DD` naming a real day in the supported range, or undefined. */
export function parseDay(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = DAY.exec(value);
  if (!m || +m[1] < 1) return undefined;
  return isRealDay(+m[1], +m[2], +m[3]) ? value : undefined;
}

/**
 * An ISO 8601 date or datetime as an instant; a value without a zone offset is UTC.
 * Returns undefined for anything else (including impossible days such as 02-30 and
 * instants outside FIRST_DAY..LAST_DAY).
 */
export function parseInstant(value: unknown): Date | undefined {
  const at = readInstant(value);
  return at instanceof Date ? at : undefined;
}

/** An instant, or why the value is not one the service accepts. */
export function readInstant(value: unknown): Date | 'unreadable' | 'out-of-range' {
  if (typeof value !== 'string') return 'unreadable';
  const m = DATETIME.exec(value.trim());
  if (!m || !isRealDay(+m[1], +m[2], +m[3])) return 'unreadable';
  const [hours, minutes, seconds] = [m[4], m[5], m[6]].map((x) => Number(x ?? 0));
  if (hours > 23 || minutes > 59 || seconds > 59) return 'unreadable';
  const zone = m[8] ? zoneSuffix(m[8]) : 'Z';
  const fraction = m[7] ? m[7].slice(0, 4).padEnd(4, '0') : '';
  const iso = `${m[1]}-${m[2]}-${m[3]}T${pad(hours)}:${pad(minutes)}:${pad(seconds)}${fraction}${zone}`;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return 'unreadable';
  return at.getTime() < EARLIEST || at.getTime() > LATEST ? 'out-of-range' : at;
}

/** The UTC calendar day of an instant, as `YYYY-MM-DD`. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The day after `day` (`YYYY-MM-DD`). */
export function nextDay(day: string): string {
  const at = new Date(`${day}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + 1);
  return utcDay(at);
}

function zoneSuffix(zone: string): string {
  if (zone.toUpperCase() === 'Z') return 'Z';
  const digits = zone.slice(1).replace(':', '');
  return `${zone[0]}${digits.slice(0, 2)}:${digits.slice(2, 4) || '00'}`;
}

function isRealDay(year: number, month: number, day: number): boolean {
  const at = new Date(Date.UTC(year, month - 1, day));
  at.setUTCFullYear(year);
  return at.getUTCFullYear() === year && at.getUTCMonth() === month - 1 && at.getUTCDate() === day;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** Validates a `YYYY-MM-DD` string naming a real calendar day. */
export function IsCalendarDay(options?: ValidationOptions): PropertyDecorator {
  return (target, property) =>
    registerDecorator({
      name: 'isCalendarDay',
      target: target.constructor,
      propertyName: property as string,
      options: {
        message: `${String(property)} must be a day as YYYY-MM-DD, ${FIRST_DAY} to ${LAST_DAY}`,
        ...options,
      },
      validator: { validate: (value: unknown) => parseDay(value) !== undefined },
    });
}

/** Validates an ISO 8601 date or datetime (no offset means UTC) in the supported range. */
export function IsInstant(options?: ValidationOptions): PropertyDecorator {
  return (target, property) => {
    const name = String(property);
    registerDecorator({
      name: 'isInstant',
      target: target.constructor,
      propertyName: name,
      options: {
        message: (args: ValidationArguments) =>
          readInstant(args.value) === 'out-of-range'
            ? `${name} must lie between ${FIRST_DAY} and ${LAST_DAY} (UTC, after applying its offset)`
            : `${name} must be an ISO 8601 date or datetime, e.g. 2024-05-01 or 2024-05-01T12:00:00Z`,
        ...options,
      },
      validator: { validate: (value: unknown) => parseInstant(value) !== undefined },
    });
  };
}
