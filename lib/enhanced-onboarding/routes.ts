// The route of enhanced onboarding: onboarding-v2's submission and answers, with the site work's results.
import { route } from '../http/route.ts';
import { onboardingBody } from '../onboarding/intake.ts';
import { integrationErrors, integrationOutcomes, submissionAnswers } from '../onboarding/routes.ts';
import { workflows } from '../provisioning/registry.ts';

const enhancedResult = {
  type: 'object',
  required: ['success', 'accountId', 'portalSlug', 'integrations'],
  properties: {
    success: { type: 'boolean' },
    accountId: { type: 'string', format: 'uuid' },
    portalSlug: { type: 'string' },
    integrations: {
      ...integrationOutcomes(workflows['enhanced-onboarding'].integrations),
      description: 'The contract order: storage folder, performance analysis, content scraping, CSV upload, CRM update, team chat notification',
    },
    details: {
      type: 'object',
      description:
        'Per integration: what was done, or why it was skipped. analysis: source and key figures (performanceScore, lcpMs, cls, tbtMs, fcpMs from PageSpeed; status, ttfbMs, totalMs, bytes, https, title from our own measurement); scrape: source, pages, words, skipped; upload: path, rows, bytes',
    },
    executionId: { type: 'string', description: 'The Step Functions execution name of the run (also the id of its crawl job)' },
    errors: integrationErrors,
  },
} as const;

export const enhancedOnboardingRoutes = {
  enhancedOnboarding: route({
    method: 'POST',
    path: '/api/onboarding/enhanced',
    operationId: 'enhancedOnboarding',
    lambda: { handler: 'functions/onboarding/enhanced-onboarding.ts' },
    summary: 'Onboard a company as onboarding-v2 does, plus an analysis and a scrape of its website, filed as CSV in its storage folder',
    tag: 'onboarding',
    access: { who: 'member', permission: 'onboard', account: { named: 'body' }, serviceKey: true },
    body: onboardingBody,
    responses: submissionAnswers(enhancedResult, 'Every integration succeeded or was skipped (not configured, or no website given)'),
  }),
};
