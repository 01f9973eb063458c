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

/** One timed run: the round it ran in, and what it measured (ms). */
export type RoundSample = readonly [round: number, ms: number];

/**
 * How far the ratio of two medians can be trusted: the 2.5th and 97.5th
 * percentiles of median(a*) / median(b*) over bootstrap resamples of the
 * rounds both ran in, drawn with replacement, each drawn round bringing its
 * samples of both. The rounds are the unit: they run the two side by side,
 * and a slow moment of the machine slows both (a function's and its floors'
 * totals from one round correlate 0.5-0.9 here). Resampling each side's runs
 * apart would count that shared drift as doubt about the ratio.
 */
export function ratioInterval(a: readonly RoundSample[], b: readonly RoundSample[], resamples = 4000): [number, number] {
  const byRound = (xs: readonly RoundSample[]) => {
    const out = new Map<number, number[]>();
    for (const [r, ms] of xs) out.set(r, [...(out.get(r) ?? []), ms]);
    return out;
  };
  const inA = byRound(a);
  const inB = byRound(b);
  const rounds = [...inA.keys()].filter((r) => inB.has(r));
  if (!rounds.length) return [Number.NaN, Number.NaN];
  const ratios = Array.from({ length: resamples }, () => {
    const drawn = Array.from(rounds, () => rounds[Math.floor(Math.random() * rounds.length)]!);
    return median(drawn.flatMap((r) => inA.get(r)!)) / median(drawn.flatMap((r) => inB.get(r)!));
  });
  return [percentile(ratios, 2.5), percentile(ratios, 97.5)];
}
