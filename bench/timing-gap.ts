// forgot-password's timing gap: does the answer's timing tell who has an
// account? Pairs of requests, one for a registered address and one for an
// unknown one, in a random order within each pair, with the identity and
// e-mail emulators answering after a fixed delay (as a real vendor would),
// so that any vendor call made for one kind of address and not the other
// shows. Each registered address is asked once, so no per-address limit is met.
import type { Scenario } from './scenario.ts';
import { median, round } from './stats.ts';

export const TIMING_GAP_BUDGET = 0.1;

export interface TimingGap {
  pairs: number;
  vendorLatencyMs: number;
  knownMs: number;
  unknownMs: number;
  /** |known − unknown| ÷ the smaller median. */
  gap: number;
  answers: string[];
}

export async function measureTimingGap(s: Scenario, options: { pairs: number; vendorLatencyMs: number }): Promise<TimingGap> {
  const known: string[] = [];
  for (let i = 0; i < options.pairs + 1; i++) known.push((await s.newUser()).email);
  const setLatency = (ms: number) =>
    Promise.all(
      ['supabase', 'resend'].map((vendor) =>
        fetch(`${s.stack.urls.emulators}/_local/latency`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ vendor, ms }) }),
      ),
    );
  const ask = async (email: string) => {
    const reply = await s.api('/api/auth/forgot-password', { body: { email } });
    return { ms: reply.ms, answer: `${reply.status} ${JSON.stringify(reply.body)}` };
  };
  const knownMs: number[] = [];
  const unknownMs: number[] = [];
  const answers = new Set<string>();
  await setLatency(options.vendorLatencyMs);
  try {
    // One pair first, not counted: it loads the handler.
    await ask(known.pop()!);
    for (const email of known) {
      const unknown = `nobody-${crypto.randomUUID()}@example.com`;
      const order = Math.random() < 0.5 ? ([email, unknown] as const) : ([unknown, email] as const);
      for (const address of order) {
        const { ms, answer } = await ask(address);
        (address === email ? knownMs : unknownMs).push(ms);
        answers.add(answer);
      }
    }
  } finally {
    await setLatency(0);
  }
  const k = median(knownMs);
  const u = median(unknownMs);
  return { pairs: knownMs.length, vendorLatencyMs: options.vendorLatencyMs, knownMs: round(k), unknownMs: round(u), gap: round(Math.abs(k - u) / Math.min(k, u), 3), answers: [...answers] };
}
