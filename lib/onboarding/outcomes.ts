// The onboarding workflows' integrations, under the names the contract uses
// for the task tool, storage, e-mail, chat and CRM, plus the enhanced
// workflow's site work: the registry's (lib/provisioning/registry.ts), from
// which each workflow's state machine is built. What their steps report is
// lib/provisioning/outcomes.ts.
import { integrations, workflows, type Integration, type WorkflowName } from '../provisioning/registry.ts';

/** onboarding-v2's integrations, in its answer's order. */
export const INTEGRATIONS = workflows.onboarding.integrations;
/** The enhanced onboarding's workflow: its run records and run ids carry this name. */
export const ENHANCED_WORKFLOW = 'enhanced-onboarding' satisfies WorkflowName;
/** The enhanced onboarding's, in the contract's order. */
export const ENHANCED_INTEGRATIONS = workflows[ENHANCED_WORKFLOW].integrations;
export const ALL_INTEGRATIONS = Object.keys(integrations) as Integration[];
