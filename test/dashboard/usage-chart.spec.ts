import { usageChart } from '../../src/dashboard/usage-chart';

describe('the usage chart', () => {
  const today = new Date('2026-11-22T18:30:00Z');

  it('has one bar per day for the last 30 days, today last, days without calls flat', () => {
    const chart = usageChart([{ day: '2026-11-20', calls: 40 }], today);
    expect(chart.bars).toHaveLength(30);
    expect(chart.bars[0].day).toBe('2026-10-24');
    expect(chart.bars[29].day).toBe('2026-11-22');
    expect(chart.bars.filter((bar) => bar.height > 0).map((bar) => bar.day)).toEqual([
      '2026-11-20',
    ]);
    expect(chart.labels.map((label) => label.text)).toEqual(['Oct 24', 'Nov 8', 'Nov 22']);
  });

  it('scales to a round maximum, and never hides a day with calls', () => {
    const chart = usageChart(
      [
        { day: '2026-11-21', calls: 1000 },
        { day: '2026-11-22', calls: 1 },
      ],
      today,
    );
    expect(chart.max).toBe(1000);
    const [busy, quiet] = chart.bars.slice(-2);
    expect(busy).toMatchObject({ calls: 1000, height: chart.height, y: 0 });
    expect(quiet.height).toBe(2);
    expect(usageChart([{ day: '2026-11-22', calls: 1001 }], today).max).toBe(2000);
    expect(usageChart([{ day: '2026-11-22', calls: 130 }], today).max).toBe(200);
    expect(usageChart([], today).max).toBe(10);
  });

  it('spans a month boundary and a leap day', () => {
    const chart = usageChart([{ day: '2028-02-29', calls: 5 }], new Date('2028-03-01T00:00:00Z'));
    expect(chart.bars.at(-2)).toMatchObject({ day: '2028-02-29', calls: 5 });
  });
});
