// What an onboarding run reports: one outcome per integration, under the
// names the contract uses for the task tool, storage, e-mail, chat and CRM.

export const INTEGRATIONS = ['clickup', 'dropbox', 'resend', 'slack', 'close'] as const;
export type Integration = (typeof INTEGRATIONS)[number];
export type Outcome = 'success' | 'skipped' | 'failed';

export interface IntegrationError {
  integration: Integration;
  message: string;
  context: Record<string, unknown>;
}

/** What one step reported for one integration (a step may report in parts, e.g. the storage-ready e-mail). */
export interface StepReport {
  integration: Integration;
  part?: string;
  outcome: Outcome;
  details: Record<string, unknown>;
  error?: { message: string; context: Record<string, unknown> };
  at: string;
}

export interface OnboardingResult {
  success: boolean;
  accountId: string;
  portalSlug: string;
  integrations: Record<Integration, Outcome>;
  details: Record<Integration, Record<string, unknown>>;
  errors?: IntegrationError[];
}

/** A step's answer to the state machine. */
export interface StepAnswer {
  integration: Integration;
  outcome: Outcome;
}

/** What a step did: success (with what it created) or skipped (with why). */
export interface StepResult {
  outcome: 'success' | 'skipped';
  details: Record<string, unknown>;
}

export const skipped = (reason: string): StepResult => ({ outcome: 'skipped', details: { reason } });
