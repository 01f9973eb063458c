// Many clients at once: a burst of onboardings submitted together against
// vendor emulators that enforce their limits (scaled down so it runs in
// minutes). Wall time from the first submission to the last run's end,
// against the least the limits allow: the busiest vendor's calls at its rate.
// Also each vendor's calls per onboarding, and how many it refused (429).
import { DescribeExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import { LOCAL_REGION, startStack } from '../local/stack.ts';
import { call, SERVICE_KEY } from './scenario.ts';
import { round } from './stats.ts';
import { vendorsOf, workflows } from '../lib/provisioning/registry.ts';

export const BURST_BUDGET = 1.2;
/** The vendors onboarding-v2's integrations call (the registry's). */
const VENDORS = vendorsOf(workflows.onboarding.integrations);

export interface BurstFigures {
  onboardings: number;
  /** The limits the emulators enforced and the service paced to, as settings. */
  limits: Record<string, string>;
  wallMs: number;
  /** The least time the limits allow: the busiest vendor's calls at its rate. */
  minimumMs: number;
  busiest: string;
  ratio: number;
  /** Per vendor; firstMs and lastMs: its first and last call after the first submission (where the wall time goes). */
  perVendor: Record<string, { calls: number; refused: number; callsPerOnboarding: number; minimumMs: number; firstMs?: number; lastMs?: number }>;
  answers: Record<string, number>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function measureBurst(options: { workFolder: string; onboardings: number; limits: Record<string, string>; progress: (line: string) => void }): Promise<BurstFigures> {
  const stack = await startStack({
    ports: { api: 0, emulators: 0, lambda: 0, dynamodb: 0, stepFunctions: 0 },
    esbuildWorkFolder: options.workFolder,
    inProcess: true,
    settings: { LOG_LEVEL: 'warn', ONBOARDING_WAIT_MS: '1000', ...options.limits },
  });
  try {
    const api = (path: string, init?: Parameters<typeof call>[2]) => call(stack.urls.api, path, init);
    const t = Date.now().toString(36);
    const started = Date.now();
    const submitted = await Promise.all(
      Array.from({ length: options.onboardings }, (_, i) =>
        api('/api/onboarding-v2', { body: { email: `burst-${i}-${t}@example.com`, companyName: `Burst ${i} ${t}` }, headers: { 'x-api-key': SERVICE_KEY } }),
      ),
    );
    const answers: Record<string, number> = {};
    const executions: string[] = [];
    for (const reply of submitted) {
      if (reply.status !== 200 && reply.status !== 202) throw new Error(`onboarding answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 300)}`);
      executions.push(reply.body.executionId);
    }

    // Every run's end, from its execution: the bench follows them as an operator would, and reads when each stopped.
    const sfn = new SFNClient({ endpoint: stack.urls.stepFunctions, region: LOCAL_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const arn = (id: string) => `arn:aws:states:${LOCAL_REGION}:000000000000:execution:agency-backend-local-onboarding:${id}`;
    const stopped = new Map<string, number>();
    for (let poll = 0; stopped.size < executions.length; poll++) {
      if (poll % 15 === 0) options.progress(`burst: ${stopped.size} of ${executions.length} runs ended`);
      await sleep(2000);
      for (const id of executions.filter((e) => !stopped.has(e))) {
        const d = await sfn.send(new DescribeExecutionCommand({ executionArn: arn(id) }));
        if (d.status === 'RUNNING') continue;
        stopped.set(id, d.stopDate!.getTime());
        answers[d.status!] = (answers[d.status!] ?? 0) + 1;
      }
    }
    const wallMs = Math.max(...stopped.values()) - started;

    const logged = (await (await fetch(`${stack.urls.emulators}/_local/requests`)).json()) as { vendor: string; at: number; status?: number }[];
    const perVendor: BurstFigures['perVendor'] = {};
    for (const vendor of VENDORS) {
      const mine = logged.filter((r) => r.vendor === vendor && r.at >= started);
      const refused = mine.filter((r) => r.status === 429).length;
      const calls = mine.length - refused;
      const limit = /^(\d+)\/(\d+)$/.exec(options.limits[`${vendor.toUpperCase()}_RATE_LIMIT`] ?? '');
      const minimumMs = limit ? (calls * Number(limit[2]) * 1000) / Number(limit[1]) : 0;
      const times = mine.map((r) => r.at - started);
      const span = times.length ? { firstMs: Math.min(...times), lastMs: Math.max(...times) } : {};
      perVendor[vendor] = { calls, refused, callsPerOnboarding: round(calls / options.onboardings), minimumMs: round(minimumMs), ...span };
    }
    const [busiest, { minimumMs }] = Object.entries(perVendor).sort((a, b) => b[1].minimumMs - a[1].minimumMs)[0]!;
    return { onboardings: options.onboardings, limits: options.limits, wallMs, minimumMs, busiest, ratio: round(wallMs / minimumMs), perVendor, answers };
  } finally {
    await stack.stop();
  }
}
