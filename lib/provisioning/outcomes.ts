// What the steps of the registry's workflows (./registry.ts) report, and what
// a run comes to: one outcome per integration of its workflow. Onboarding,
// offboarding and the crawler's steps all report so.
import type { Integration } from './registry.ts';

export type Outcome = 'success' | 'skipped' | 'failed';

export interface IntegrationError {
  integration: Integration;
  message: string;
  context: Record<string, unknown>;
}

/** What one step reported for one integration (a step may report in parts, e.g. the storage-ready e-mail); "waiting" while it waits for a vendor. */
export interface StepReport {
  integration: Integration;
  part?: string;
  outcome: Outcome | 'waiting';
  details: Record<string, unknown>;
  error?: { message: string; context: Record<string, unknown> };
  at: string;
}

export interface RunResult {
  success: boolean;
  accountId: string;
  portalSlug: string;
  /** One entry per integration of the run's workflow. */
  integrations: Partial<Record<Integration, Outcome>>;
  details: Partial<Record<Integration, Record<string, unknown>>>;
  errors?: IntegrationError[];
  /** Why a run ended before its integrations ran (an offboarding whose subscription came back): nothing was done. */
  stopped?: string;
}

/** What a step did: success (with what it created) or skipped (with why). */
export interface StepResult {
  outcome: 'success' | 'skipped';
  details: Record<string, unknown>;
}

export const skipped = (reason: string): StepResult => ({ outcome: 'skipped', details: { reason } });

/** A step's latest report, in short: what a run's view needs. */
export interface StepProgress {
  integration: Integration;
  part?: string;
  outcome: StepReport['outcome'];
  at: string;
  vendor?: string;
  until?: string;
}

/**
 * Where each integration of a running run stands, from its steps' latest
 * reports: the outcome, "waiting for <vendor> until <time>" while it waits for
 * a vendor, or "pending" before its step has reported.
 */
export function progressOf(reports: StepProgress[], integrations: readonly Integration[]): Record<string, string> {
  return Object.fromEntries(
    integrations.map((integration) => {
      const latest = reports.filter((r) => r.integration === integration).sort((a, b) => a.at.localeCompare(b.at)).at(-1);
      if (!latest) return [integration, 'pending'];
      if (latest.outcome === 'waiting') return [integration, `waiting for ${latest.vendor} until ${latest.until}`];
      return [integration, latest.outcome];
    }),
  );
}
