import type { AccountStore } from '../../accounts/accounts.ts';
import type { Chat } from '../../integrations/chat.ts';
import type { StepInput } from '../../provisioning/integration-step.ts';
import { chatField, chatMrkdwn, chatText, oneLine, TEXT_LIMITS } from '../../text.ts';
import { remembered, type Ledger } from '../../provisioning/ledger.ts';
import { ENHANCED_WORKFLOW } from '../outcomes.ts';
import { skipped, type StepReport, type StepResult } from '../../provisioning/outcomes.ts';
import type { RunStore } from '../../provisioning/runs.ts';
import { requireAccount } from './account.ts';

export interface ChatDeps {
  chat: Chat | null;
  ledger: Ledger;
  accounts: Pick<AccountStore, 'getAccount'>;
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
  // Every field a user gave is one escaped line (lib/text.ts): no mention, link or line of theirs.
  const company = oneLine(account.company_name ?? input.portalSlug);
  const plan = account.plan ?? account.requested_plan;
  const findings = enhanced ? siteFindings(await deps.runs.steps(input.runId)).map((line) => chatField(line, TEXT_LIMITS.line)) : [];
  // Our own portal link stays one: written as a link in the verbatim blocks, found by Slack in the text.
  const facts = (portal: string) =>
    [
      `Contact: ${chatField(input.email, TEXT_LIMITS.email)}`,
      account.company_url && `Website: ${chatField(account.company_url, TEXT_LIMITS.url)}`,
      plan && `Plan: ${chatField(plan)}`,
      `Portal: ${portal}`,
      ...findings,
    ]
      .filter(Boolean)
      .join('\n');
  let postedNow = false;
  await remembered(deps.ledger, { accountId: account.id, resource: enhanced ? `slack#enhanced#${input.runId}` : 'slack#new-client', maker: input.runId }, async () => {
    const { ts } = await chat.post({
      text: `New client onboarded: ${chatField(company)}\n${facts(chatText(portalLink))}`,
      blocks: [
        // Slack's limit for a header is 150 characters.
        { type: 'header', text: { type: 'plain_text', text: chatField(`New client: ${company}`, 150) } },
        { type: 'section', text: chatMrkdwn(facts(`<${chatText(portalLink)}>`)) },
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
