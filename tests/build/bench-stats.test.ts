// The bench's statistics: the interval that decides whether a floor proves a budget unmeetable.
import { describe, expect, it } from 'vitest';
import { median, ratioInterval } from '../../bench/stats.ts';

describe('ratioInterval', () => {
  it('is the ratio itself when nothing varies', () => {
    expect(ratioInterval([150, 150, 150], [100, 100, 100])).toEqual([1.5, 1.5]);
  });

  it('holds the ratio of the medians, and widens with the spread of the rounds', () => {
    const a = [140, 146, 151, 149, 160, 144, 152, 147, 155, 150];
    const b = [98, 101, 97, 100, 103, 99, 96, 102, 100, 104];
    const [low, high] = ratioInterval(a, b);
    const ratio = median(a) / median(b);
    expect(low).toBeLessThanOrEqual(ratio);
    expect(high).toBeGreaterThanOrEqual(ratio);
    expect(low).toBeLessThan(1.5);
    expect(high).toBeGreaterThan(1.5);
    const [tightLow, tightHigh] = ratioInterval(a.map((x) => 150 + (x - 150) / 10), b.map((x) => 100 + (x - 100) / 10));
    expect(tightHigh - tightLow).toBeLessThan((high - low) / 2);
  });
});
