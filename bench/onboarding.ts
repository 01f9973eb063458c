// Onboarding end to end, with every vendor emulator answering after a fixed
// delay: the time a caller waits for POST /api/onboarding-v2, against the
// run's critical path (the slug step plus the slowest provisioning branch),
// both read off the same execution's history. Branches that overlap keep the
// ratio near 1; branches run one after another would push it towards
// (slug + sum of branches) / critical path, also reported.
import { GetExecutionHistoryCommand, type HistoryEvent, SFNClient } from '@aws-sdk/client-sfn';
import { LOCAL_REGION } from '../local/stack.ts';
import { stateMachines } from '../statemachines/cloudformation.ts';
import { SERVICE_KEY, type Scenario } from './scenario.ts';
import { median, round } from './stats.ts';
import { vendorsOf, workflows } from '../lib/provisioning/registry.ts';

/** The vendors onboarding-v2's integrations call (the registry's). */
const VENDORS = vendorsOf(workflows.onboarding.integrations);

export interface OnboardingRun {
  endToEndMs: number;
  slugMs: number;
  branchMs: Record<string, number>;
  criticalPathMs: number;
  serialMs: number;
  ratio: number;
}

export interface OnboardingFigures {
  vendorLatencyMs: number;
  runs: OnboardingRun[];
  median: { endToEndMs: number; criticalPathMs: number; serialMs: number; ratio: number };
}

interface Asl {
  StartAt: string;
  States: Record<string, { Type: string; Branches?: { StartAt: string; States: Record<string, unknown> }[] }>;
}

export async function measureOnboarding(s: Scenario, options: { runs: number; vendorLatencyMs: number }): Promise<OnboardingFigures> {
  const asl: Asl = stateMachines.onboarding as never;
  const slugState = asl.StartAt;
  const provision = Object.entries(asl.States).find(([, st]) => st.Type === 'Parallel')!;
  // Each branch is named by its first state; its states are the ones it declares.
  const branches = provision[1].Branches!.map((b) => ({ name: b.StartAt, states: new Set(Object.keys(b.States)) }));

  const sfn = new SFNClient({ endpoint: s.stack.urls.stepFunctions, region: LOCAL_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const setLatency = (ms: number) =>
    Promise.all(
      VENDORS.map((vendor) =>
        fetch(`${s.stack.urls.emulators}/_local/latency`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ vendor, ms }) }),
      ),
    );

  const runs: OnboardingRun[] = [];
  await setLatency(options.vendorLatencyMs);
  try {
    for (let i = 0; i < options.runs; i++) {
      const t = `${Date.now().toString(36)}${i}`;
      const reply = await s.api('/api/onboarding-v2', { body: { email: `bench-${t}@example.com`, companyName: `Bench Onboarding ${t}` }, headers: { 'x-api-key': SERVICE_KEY } });
      if (reply.status !== 200 || reply.body.success !== true) throw new Error(`onboarding answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 300)}`);
      const arn = `arn:aws:states:${LOCAL_REGION}:000000000000:execution:agency-backend-local-onboarding:${reply.body.executionId}`;
      const { events = [] } = await sfn.send(new GetExecutionHistoryCommand({ executionArn: arn, maxResults: 1000 }));
      const slugMs = span(events, new Set([slugState]));
      const branchMs = Object.fromEntries(branches.map((b) => [b.name, span(events, b.states)]));
      const slowest = Math.max(...Object.values(branchMs));
      const sum = Object.values(branchMs).reduce((a, b) => a + b, 0);
      runs.push({
        endToEndMs: round(reply.ms),
        slugMs: round(slugMs),
        branchMs,
        criticalPathMs: round(slugMs + slowest),
        serialMs: round(slugMs + sum),
        ratio: round(reply.ms / (slugMs + slowest)),
      });
    }
  } finally {
    await setLatency(0);
  }
  return {
    vendorLatencyMs: options.vendorLatencyMs,
    runs,
    median: {
      endToEndMs: round(median(runs.map((r) => r.endToEndMs))),
      criticalPathMs: round(median(runs.map((r) => r.criticalPathMs))),
      serialMs: round(median(runs.map((r) => r.serialMs))),
      ratio: round(median(runs.map((r) => r.ratio))),
    },
  };
}

/** From the first state of the set entered to the last one exited, in milliseconds. */
function span(events: HistoryEvent[], states: Set<string>): number {
  const times = (suffix: string) =>
    events
      .filter((e) => e.type?.endsWith(suffix) && states.has((e.stateEnteredEventDetails ?? e.stateExitedEventDetails)?.name ?? ''))
      .map((e) => e.timestamp!.getTime());
  const entered = times('StateEntered');
  const exited = times('StateExited');
  if (!entered.length || !exited.length) throw new Error(`no events of ${[...states].join(', ')} in the history`);
  return Math.max(...exited) - Math.min(...entered);
}
