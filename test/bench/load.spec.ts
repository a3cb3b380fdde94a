import { byWindow } from '../../tools/bench/load';

describe("the bench's latency by date window", () => {
  it('groups requests by their window and counts who made the slowest 1%', () => {
    const body = (window: Record<string, string>) =>
      JSON.stringify({ query: 'q', k: 10, ...window });
    const bodies = [
      ...Array.from({ length: 150 }, () => body({})),
      ...Array.from({ length: 48 }, () => body({ true_by_max: '2024-01-01' })),
      body({ true_by_min: '2023-01-01', true_by_max: '2024-01-01' }),
      body({ true_by_min: '2023-12-02', true_by_max: '2024-01-01' }),
    ];
    // The two windowed requests are the two slowest of 200.
    const times = [...Array.from({ length: 198 }, (_, i) => 10 + i / 100), 90, 40];
    const groups = byWindow(bodies, times, 2);
    expect(Object.keys(groups).sort()).toEqual(['30 days', '365 days', 'no dates', 'upper bound']);
    expect(groups['no dates']).toMatchObject({ requests: 150, slowest: 0, max: 11.49 });
    expect(groups['upper bound']).toMatchObject({ requests: 48, slowest: 0 });
    expect(groups['365 days']).toMatchObject({ requests: 1, p50: 90, slowest: 1 });
    expect(groups['30 days']).toMatchObject({ requests: 1, p50: 40, slowest: 1 });
  });
});
