import { registerDecorator, ValidationOptions } from 'class-validator';

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** `YYYY-MM-DD` naming a real day, or undefined. */
export function parseDay(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = DAY.exec(value);
  if (!m) return undefined;
  return isRealDay(+m[1], +m[2], +m[3]) ? value : undefined;
}

/**
 * An ISO 8601 date or datetime as an instant; a value without a zone offset is UTC.
 * Returns undefined for anything else (including impossible days such as 02-30).
 */
export function parseInstant(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const m = DATETIME.exec(value.trim());
  if (!m || !isRealDay(+m[1], +m[2], +m[3])) return undefined;
  const [hours, minutes, seconds] = [m[4], m[5], m[6]].map((x) => Number(x ?? 0));
  if (hours > 23 || minutes > 59 || seconds > 59) return undefined;
  const zone = m[8] ? zoneSuffix(m[8]) : 'Z';
  const fraction = m[7] ? m[7].slice(0, 4).padEnd(4, '0') : '';
  const iso = `${m[1]}-${m[2]}-${m[3]}T${pad(hours)}:${pad(minutes)}:${pad(seconds)}${fraction}${zone}`;
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? undefined : at;
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
      options: { message: `${String(property)} must be a day as YYYY-MM-DD`, ...options },
      validator: { validate: (value: unknown) => parseDay(value) !== undefined },
    });
}

/** Validates an ISO 8601 date or datetime (no offset means UTC). */
export function IsInstant(options?: ValidationOptions): PropertyDecorator {
  return (target, property) =>
    registerDecorator({
      name: 'isInstant',
      target: target.constructor,
      propertyName: property as string,
      options: {
        message: `${String(property)} must be an ISO 8601 date or datetime, e.g. 2024-05-01 or 2024-05-01T12:00:00Z`,
        ...options,
      },
      validator: { validate: (value: unknown) => parseInstant(value) !== undefined },
    });
}
