// What an onboarding run reports: one outcome per integration of its
// workflow, under the names the contract uses for the task tool, storage,
// e-mail, chat and CRM, plus the enhanced workflow's site work. Each state
// machine names its own list (RecordOutcome's `integrations`).

/** onboarding-v2's integrations (statemachines/onboarding.asl.json). */
export const INTEGRATIONS = ['clickup', 'dropbox', 'resend', 'slack', 'close'] as const;
/** The enhanced onboarding's workflow: its run records and run ids carry this name. */
export const ENHANCED_WORKFLOW = 'enhanced-onboarding';
/** The enhanced onboarding's (statemachines/enhanced-onboarding.asl.json), in the contract's order. */
export const ENHANCED_INTEGRATIONS = ['dropbox', 'analysis', 'scrape', 'upload', 'close', 'slack'] as const;
export const ALL_INTEGRATIONS = [...new Set([...INTEGRATIONS, ...ENHANCED_INTEGRATIONS])];
export type Integration = (typeof INTEGRATIONS)[number] | (typeof ENHANCED_INTEGRATIONS)[number];
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
  /** One entry per integration of the run's workflow. */
  integrations: Partial<Record<Integration, Outcome>>;
  details: Partial<Record<Integration, Record<string, unknown>>>;
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
