// Warm overhead of our HTTP middleware stack: the same response from the
// stack around a do-nothing handler and from a bare handler, called
// alternately in one process; and the first call after a cold load (where a
// schema compiled per process, or per call, would show).
import { pathToFileURL } from 'node:url';
import { runProbe } from './probe.ts';
import { median, percentile, round } from './stats.ts';

export interface WarmFigures {
  processes: number;
  callsPerProcess: number;
  stacked: { p50: number; p99: number; firstCall: number };
  bare: { p50: number; p99: number; firstCall: number };
  /** p99(stack) − p99(bare), milliseconds. */
  p99OverheadMs: number;
}

interface WarmSample {
  firstStacked: number;
  firstBare: number;
  stacked: number[];
  bare: number[];
}

export async function measureWarm(options: {
  stackedBundle: string;
  bareBundle: string;
  env: Record<string, string>;
  processes: number;
  calls: number;
}): Promise<WarmFigures> {
  const runs: WarmSample[] = [];
  for (let i = 0; i < options.processes; i++) {
    runs.push(
      await runProbe<WarmSample>('warm.mjs', [pathToFileURL(options.stackedBundle).href, pathToFileURL(options.bareBundle).href, String(options.calls)], {
        env: options.env,
        timeoutMs: 300_000,
      }),
    );
  }
  const stacked = runs.flatMap((r) => r.stacked);
  const bare = runs.flatMap((r) => r.bare);
  const figures = (all: number[], first: number[]) => ({ p50: round(median(all), 4), p99: round(percentile(all, 99), 4), firstCall: round(median(first), 3) });
  return {
    processes: options.processes,
    callsPerProcess: options.calls,
    stacked: figures(stacked, runs.map((r) => r.firstStacked)),
    bare: figures(bare, runs.map((r) => r.firstBare)),
    p99OverheadMs: round(percentile(stacked, 99) - percentile(bare, 99), 4),
  };
}
