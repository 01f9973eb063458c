// The crawler's step Lambdas serve two state machines: the refresh machine,
// where a step works on its job and answers, and the enhanced onboarding,
// where the same step is also an integration of the run (it reports its
// outcome for RecordOutcome and is held for a redrive on the retry pass).
// The input says which: only an onboarding run passes a runId.
import type { Integration } from '../provisioning/registry.ts';
import type { StepResult } from '../provisioning/outcomes.ts';
import type { RunStore } from '../provisioning/runs.ts';
import { integrationStep, type StepAnswer, type StepInput, type StepPace } from '../provisioning/integration-step.ts';
import type { CrawlStepInput } from './crawl-job.ts';

export type CrawlStepEvent = CrawlStepInput & Partial<StepInput>;

export function crawlStep(integration: Integration, runs: RunStore, work: (input: CrawlStepInput) => Promise<StepResult>, pace?: StepPace) {
  const asIntegration = integrationStep<Integration, StepInput & CrawlStepInput>(integration, runs, work, pace);
  return async (input: CrawlStepEvent): Promise<StepAnswer<Integration>> => {
    if (input.runId) return asIntegration(input as StepInput & CrawlStepInput);
    const result = await work(input);
    return { integration, outcome: result.outcome };
  };
}
