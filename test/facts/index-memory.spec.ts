import { indexBuildMemoryMb } from '../../src/facts/maintenance.repository';

// pgvector's HNSW graph spilled out of 64 MB after 52,703 128-d facts: about 1.3 KB a
// fact, which the estimate covers with a quarter to spare.
describe('the memory an index build is given', () => {
  it('grows with the facts and their dimensions, from a floor of 64 MB', () => {
    expect(indexBuildMemoryMb(1000, 128, false)).toBe(64);
    // 100,000 × (4·128 + 800) B × 1.25 = 164,000,000 B
    expect(indexBuildMemoryMb(100_000, 128, false)).toBe(157);
    expect(indexBuildMemoryMb(1_000_000, 128, false)).toBe(1565);
    expect(indexBuildMemoryMb(1_000_000, 512, false)).toBe(3396);
    expect(indexBuildMemoryMb(52_703, 128, false) * 2 ** 20).toBeGreaterThan(64 * 2 ** 20);
  });

  it('stays within PGlite’s 2 GiB on the embedded store', () => {
    expect(indexBuildMemoryMb(1_000_000, 128, true)).toBe(1200);
  });
});
