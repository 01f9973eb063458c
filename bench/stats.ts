// Order statistics of samples (milliseconds).
export function percentile(samples: ArrayLike<number>, p: number): number {
  const sorted = Float64Array.from(samples).sort();
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (samples: ArrayLike<number>) => percentile(samples, 50);

export const round = (n: number, digits = 2) => Number(n.toFixed(digits));

/** Shuffled copy (Fisher–Yates), so no function always runs right after another. */
export function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * How far the ratio of two medians can be trusted: the 2.5th and 97.5th
 * percentiles of median(a*) / median(b*) over bootstrap resamples a*, b* of
 * each (drawn with replacement, independently: the rounds shuffle every job).
 */
export function ratioInterval(a: readonly number[], b: readonly number[], resamples = 4000): [number, number] {
  const draw = (xs: readonly number[]) => median(Array.from(xs, () => xs[Math.floor(Math.random() * xs.length)]!));
  const ratios = Array.from({ length: resamples }, () => draw(a) / draw(b));
  return [percentile(ratios, 2.5), percentile(ratios, 97.5)];
}
