// The bench's statistics: the interval that decides whether a floor proves a budget unmeetable.
import { describe, expect, it } from 'vitest';
import { median, ratioInterval, type RoundSample } from '../../bench/stats.ts';

const inRounds = (ms: number[]): RoundSample[] => ms.map((x, i) => [i + 1, x]);
const width = ([low, high]: [number, number]) => high - low;

describe('ratioInterval', () => {
  it('is the ratio itself when nothing varies', () => {
    expect(ratioInterval(inRounds([150, 150, 150]), inRounds([100, 100, 100]))).toEqual([1.5, 1.5]);
  });

  it('holds the ratio of the medians, and widens with the spread of the rounds', () => {
    const a = [140, 146, 151, 149, 160, 144, 152, 147, 155, 150];
    const b = [98, 101, 97, 100, 103, 99, 96, 102, 100, 104];
    const [low, high] = ratioInterval(inRounds(a), inRounds(b));
    const ratio = median(a) / median(b);
    expect(low).toBeLessThanOrEqual(ratio);
    expect(high).toBeGreaterThanOrEqual(ratio);
    expect(low).toBeLessThan(1.5);
    expect(high).toBeGreaterThan(1.5);
    const tight = ratioInterval(inRounds(a.map((x) => 150 + (x - 150) / 10)), inRounds(b.map((x) => 100 + (x - 100) / 10)));
    expect(width(tight)).toBeLessThan((high - low) / 2);
  });

  it('resamples whole rounds: a slow round slows both, and that is no doubt about their ratio', () => {
    // Each round's pace of the machine (0.85-1.15), the same for both runs of the round, and a little noise of each run's own.
    const pace = Array.from({ length: 30 }, (_, i) => 1 + 0.15 * Math.sin(i * 2.4));
    const own = (i: number, k: number) => 1 + 0.02 * Math.sin(i * 7.1 + k);
    const a = pace.map((p, i) => 150 * p * own(i, 0));
    const b = pace.map((p, i) => 100 * p * own(i, 1));
    const paired = ratioInterval(inRounds(a), inRounds(b));
    expect(paired[0]).toBeLessThan(1.5);
    expect(paired[1]).toBeGreaterThan(1.5);
    // The same runs, b's rounds shifted by one: no round's pace is on both sides any more.
    const apart = ratioInterval(inRounds(a), b.map((x, i): RoundSample => [((i + 1) % 30) + 1, x]));
    expect(width(paired)).toBeLessThan(width(apart) / 3);
  });

  it('uses only the rounds both ran in, each with all its runs', () => {
    const a: RoundSample[] = [[1, 150], [2, 150], [3, 900]];
    const b: RoundSample[] = [[1, 100], [1, 100], [2, 100]];
    expect(ratioInterval(a, b)).toEqual([1.5, 1.5]);
    expect(ratioInterval(a, [[4, 100]])).toEqual([Number.NaN, Number.NaN]);
  });
});
