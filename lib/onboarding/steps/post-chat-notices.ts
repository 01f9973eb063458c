import type { AccountStore } from '../../accounts/accounts.ts';
import type { Chat } from '../../integrations/chat.ts';
import type { StepInput } from '../../provisioning/integration-step.ts';
import { remembered, type Ledger } from '../../provisioning/ledger.ts';
import { ENHANCED_WORKFLOW, skipped, type StepReport, type StepResult } from '../outcomes.ts';
import type { RunStore } from '../runs.ts';
import { requireAccount } from './account.ts';

export interface ChatDeps {
  chat: Chat | null;
  ledger: Ledger;
  accounts: AccountStore;
  /** The run's record says which workflow posts; its step reports hold what an enhanced run found on the website. */
  runs: Pick<RunStore, 'get' | 'steps'>;
  portalUrl: string;
}

/**
 * The team's new-client notice. onboarding-v2 posts it once per account. An
 * enhanced onboarding reports what its own run found on the website, so it
 * posts one per run (a redrive of that run, none again), whatever
 * onboarding-v2 posted before. The outcome names only what this call posted.
 */
export async function postChatNotices(deps: ChatDeps, input: StepInput): Promise<StepResult> {
  const { chat } = deps;
  if (!chat) return skipped('Slack is not configured in this deployment');
  const account = await requireAccount(deps.accounts, input.accountId);
  const enhanced = (await deps.runs.get(input.runId))?.workflow === ENHANCED_WORKFLOW;
  const notice = enhanced ? 'enhanced-onboarding' : 'new-client';
  const portalLink = `${deps.portalUrl}/${input.portalSlug}`;
  const company = account.company_name ?? input.portalSlug;
  const facts = [
    `Contact: ${input.email}`,
    account.company_url && `Website: ${account.company_url}`,
    (account.plan ?? account.requested_plan) && `Plan: ${account.plan ?? account.requested_plan}`,
    `Portal: ${portalLink}`,
    ...(enhanced ? siteFindings(await deps.runs.steps(input.runId)) : []),
  ]
    .filter(Boolean)
    .join('\n');
  let postedNow = false;
  await remembered(deps.ledger, { accountId: account.id, resource: enhanced ? `slack#enhanced#${input.runId}` : 'slack#new-client', maker: input.runId }, async () => {
    const { ts } = await chat.post({
      text: `New client onboarded: ${company}\n${facts}`,
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: `New client: ${company}`.slice(0, 150) } },
        { type: 'section', text: { type: 'mrkdwn', text: facts.replace(/[<>&]/g, '') } },
      ],
    });
    postedNow = true;
    return { ts: ts ?? 'incoming-webhook' };
  });
  return { outcome: 'success', details: postedNow ? { posted: [notice] } : { posted: [], alreadyPosted: [notice] } };
}

/** One line each for the analysis, the scrape and the CSV upload of an enhanced run, as far as they got. */
function siteFindings(reports: StepReport[]): string[] {
  const report = (integration: StepReport['integration']) => reports.find((r) => r.integration === integration && !r.part);
  const line = (label: string, r: StepReport | undefined, describe: (d: Record<string, unknown>) => string) => {
    if (!r || r.outcome === 'skipped') return undefined;
    if (r.outcome === 'failed') return `${label}: failed (${r.error?.message ?? 'no reason recorded'})`;
    return `${label}: ${describe(r.details)}`;
  };
  return [
    line('Website analysis', report('analysis'), (d) =>
      d.source === 'pagespeed'
        ? `performance ${d.performanceScore ?? 'n/a'} (mobile), ${d.desktopPerformanceScore ?? 'n/a'} (desktop)${d.lcpMs != null ? `, LCP ${d.lcpMs} ms` : ''}`
        : `status ${d.status}, first byte after ${d.ttfbMs} ms, ${d.totalMs} ms in all, ${d.bytes} bytes`,
    ),
    line('Website content', report('scrape'), (d) => `${d.pages} page${d.pages === 1 ? '' : 's'}, ${d.words} words`),
    line('Content CSV', report('upload'), (d) => `${d.path} (${d.rows} rows)`),
  ].filter((l): l is string => l !== undefined);
}
