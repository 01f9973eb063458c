// The emulator host in-process, for adapter contract tests.
import { afterAll, beforeAll } from 'vitest';
import { MustWait, type VendorPace } from '../../lib/integrations/pacing.ts';
import { startEmulatorHost, type EmulatorHost } from '../../local/emulators/host.ts';
import type { EmulatorContext, LocalVendor } from '../../local/emulators/index.ts';

export interface TestEmulators {
  url: string;
  env: Record<string, string>;
  get<T = any>(kind: string): Promise<T>;
  /** A generic mode (fail, throttle, hang, lose-answer) or one of the vendor's own. */
  fault(f: { vendor: string; mode: string; count?: number; match?: string; retryAfterSeconds?: number }): Promise<void>;
  reset(): Promise<void>;
}

export function useEmulators(...vendors: LocalVendor[]): TestEmulators {
  const ctx = {} as TestEmulators;
  let host: EmulatorHost;
  beforeAll(async () => {
    host = await startEmulatorHost({ port: 0 });
    const context: EmulatorContext = { hostUrl: host.url, apiUrl: 'http://127.0.0.1:9' };
    for (const v of vendors) host.register(v.create(context));
    ctx.url = host.url;
    ctx.env = Object.assign({}, ...vendors.map((v) => v.env(context)));
    ctx.get = async <T,>(kind: string) => (await (await fetch(`${host.url}/_local/${kind}`)).json()) as T;
    ctx.fault = async (f) => {
      const res = await fetch(`${host.url}/_local/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(f) });
      if (res.status !== 201) throw new Error(`fault refused: ${await res.text()}`);
    };
    ctx.reset = async () => {
      await fetch(`${host.url}/_local`, { method: 'DELETE' });
    };
  });
  afterAll(async () => host?.stop());
  return ctx;
}

/** A retry policy that keeps contract tests quick. */
export const quickPolicy = { timeoutMs: 500, maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5, maxRetryWaitMs: 3000 };

/**
 * A workflow step's pace, as the adapters see it: counts the slots its requests take, and hands a
 * vendor's "later" up as MustWait, as a step's pace does (pacing.ts).
 */
export function countingPace(vendor: string): VendorPace & { taken: number; laters: (number | undefined)[] } {
  const pace = {
    vendor,
    taken: 0,
    laters: [] as (number | undefined)[],
    take: async () => {
      pace.taken += 1;
    },
    later: async (afterMs: number | undefined) => {
      pace.laters.push(afterMs);
      throw new MustWait(vendor, Date.now() + (afterMs ?? 0), []);
    },
  };
  return pace;
}
