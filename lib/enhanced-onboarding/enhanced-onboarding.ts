// The enhanced onboarding: the same submission, records, access rule and
// answers as onboarding-v2, run by its own state machine
// (the enhanced-onboarding workflow of lib/provisioning/registry.ts), which also analyses, scrapes
// and files the client's website. The site work is a crawl job like an
// admin's refresh (lib/crawler), opened before the run starts so its steps
// find it, and named after the run.
import { openCrawlJob } from '../crawler/crawl-job.ts';
import type { CrawlRecords } from '../crawler/records.ts';
import type { OnboardingIntake } from '../onboarding/intake.ts';
import { ENHANCED_WORKFLOW } from '../onboarding/outcomes.ts';
import { awaitRun, beginOnboarding, type OnboardingDeps, type RunAnswer } from '../onboarding/start-onboarding.ts';

export { ENHANCED_WORKFLOW };

export interface EnhancedOnboardingDeps extends OnboardingDeps {
  crawl: Pick<CrawlRecords, 'jobs' | 'events' | 'stats'>;
  now?: () => Date;
}

/**
 * 1–4. As onboarding-v2: member record, account, integration row, the run.
 * Before the run starts: when the company gave a website, the crawl job the
 * run's analysis, scrape and upload steps work on (job id = run id).
 */
export async function onboardEnhanced(deps: EnhancedOnboardingDeps, accountId: string, intake: OnboardingIntake, answerBy?: number): Promise<RunAnswer> {
  const run = await beginOnboarding(deps, accountId, intake, {
    workflow: ENHANCED_WORKFLOW,
    beforeStart: async ({ runId, accountId }) => {
      if (!intake.companyUrl) return;
      await openCrawlJob(deps.crawl, {
        job_id: runId,
        account_id: accountId,
        kind: 'onboarding',
        url: intake.companyUrl,
        context: {},
        requested_at: (deps.now ?? (() => new Date()))().toISOString(),
      });
    },
  });
  return awaitRun(deps, run, answerBy);
}
