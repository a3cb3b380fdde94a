import { nextDay, parseDay, parseInstant, readInstant, utcDay } from '../../src/common/dates';

describe('request dates', () => {
  it.each([
    ['2024-05-01', '2024-05-01T00:00:00.000Z'],
    ['2024-05-01T12:30', '2024-05-01T12:30:00.000Z'],
    ['2024-05-01T12:30:15.25', '2024-05-01T12:30:15.250Z'],
    ['2024-05-01T01:00:00+02:00', '2024-04-30T23:00:00.000Z'],
    ['2024-05-01T01:00:00-0530', '2024-05-01T06:30:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
  ])('reads %s as %s (no offset means UTC)', (text, iso) => {
    expect(parseInstant(text)?.toISOString()).toBe(iso);
  });

  it.each([
    '',
    'yesterday',
    '2023-02-29',
    '2024-13-01',
    '2024-05-01T25:00',
    '2024-5-1',
    '2024-05-01T12:00:00+2',
  ])('rejects %j', (text) => expect(parseInstant(text)).toBeUndefined());

  it.each([
    '0000-01-01',
    '0000-12-31T23:59:59Z',
    '0001-01-01T00:00:00+14:00',
    '9999-12-31T23:00:00-12:00',
  ])('reads %j as outside 0001-01-01..9999-12-31 UTC, after its offset', (text) => {
    expect(readInstant(text)).toBe('out-of-range');
    expect(parseInstant(text)).toBeUndefined();
  });

  it.each([
    ['0001-01-01', '0001-01-01T00:00:00.000Z'],
    ['0001-01-01T14:00:00+14:00', '0001-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999', '9999-12-31T23:59:59.999Z'],
    ['9999-12-31T11:59:59-12:00', '9999-12-31T23:59:59.000Z'],
  ])('takes %s, just inside the range', (text, iso) => {
    expect(parseInstant(text)?.toISOString()).toBe(iso);
  });

  it('checks fact days strictly', () => {
    expect(parseDay('0000-01-01')).toBeUndefined();
    expect(parseDay('0001-01-01')).toBe('0001-01-01');
    expect(parseDay('1109-01-01')).toBe('1109-01-01');
    expect(parseDay('2023-02-29')).toBeUndefined();
    expect(parseDay('2023-02-28T00:00')).toBeUndefined();
  });

  it('computes the day after a cutoff and the UTC day of an instant', () => {
    expect(nextDay('2023-12-31')).toBe('2024-01-01');
    expect(nextDay('2024-02-28')).toBe('2024-02-29');
    expect(utcDay(new Date('2024-05-01T23:30:00-02:00'))).toBe('2024-05-02');
  });
});
