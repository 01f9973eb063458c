// The bench's report: every figure with its floors and budget, "N of M
// budgets met", and for each figure over budget, by how much and why (from
// what was measured beside it).
import { BURST_BUDGET, type BurstFigures } from './burst.ts';
import type { ColdStarts } from './cold-start.ts';
import type { OnboardingFigures } from './onboarding.ts';
import { TIMING_GAP_BUDGET, type TimingGap } from './timing-gap.ts';
import type { WarmFigures } from './warm.ts';
import { MIN_DYNAMO_CALLS, WEBHOOK_BUDGET, type WebhookScenario } from './webhooks.ts';

export interface BenchResults {
  startedAt: string;
  machine: { node: string; cpus: number; cpuModel: string; platform: string; loadAverage: number[] };
  settings: Record<string, number | string>;
  coldStarts?: ColdStarts;
  warm?: WarmFigures;
  onboarding?: OnboardingFigures;
  webhooks?: WebhookScenario[];
  timingGap?: TimingGap;
  burst?: BurstFigures;
}

export interface BudgetLine {
  figure: string;
  measured: number;
  budget: number;
  unit: string;
  over: boolean;
  /** How far over, as a share of the budget (0 when within). */
  overBy: number;
  /** For a figure over budget: what the measurements beside it say. */
  why?: string;
  /**
   * For a figure over budget that no code of ours could bring within it: the
   * measured floor that proves so (e.g. the same requests through the fixed
   * AWS SDK clients, alone over the budget).
   */
  unmeetable?: string;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
const ms = (n: number) => `${n.toFixed(1)} ms`;
const pct = (n: number) => `${(n * 100).toFixed(0)}%`;
const interval = ([low, high]: [number, number]) => `95% bootstrap interval ${low}–${high}×`;

const line = (figure: string, measured: number, budget: number, unit: string, why: () => string, unmeetable?: () => string | undefined): BudgetLine => {
  const over = measured > budget;
  const proof = over ? unmeetable?.() : undefined;
  return { figure, measured, budget, unit, over, overBy: over ? (measured - budget) / budget : 0, ...(over ? { why: why() } : {}), ...(proof ? { unmeetable: proof } : {}) };
};

export function budgets(r: BenchResults): BudgetLine[] {
  const lines: BudgetLine[] = [];
  for (const f of r.coldStarts?.functions ?? []) {
    const against = f.budget === 1.3 ? 'the empty handler' : f.floor.kind;
    lines.push(
      line(
        `cold start: ${f.key} ÷ ${against}`,
        f.ratio,
        f.budget,
        '×',
        () => {
          const floor = f.budget === 1.3 ? r.coldStarts!.floor : f.floor;
          const importExcess = f.importMs - floor.importMs;
          const callExcess = f.firstCallMs - floor.firstCallMs;
          return (
            `${ms(f.totalMs)} against ${ms(floor.totalMs)}. Loading its ${kb(f.bundleBytes)} bundle takes ${ms(f.importMs)} (floor ${ms(floor.importMs)}, +${ms(importExcess)}); ` +
            `its first answer ${ms(f.firstCallMs)} (floor ${ms(floor.firstCallMs)}, ${callExcess >= 0 ? '+' : ''}${ms(callExcess)}) for ${f.io}. ` +
            (importExcess >= callExcess
              ? 'Most of the excess is compiling and running the bundle: its size is the SDKs it carries (see the compile-cache variants below for what compilation alone costs).'
              : "Most of the excess is the first call: the SDK clients' one-time setup (configuration, endpoint rules, middleware) before their first request, which the bare floor does not have.") +
            (f.sdkFloor
              ? ` The same requests through the fixed packages' clients alone (${f.sdkFloor.clients}, ${kb(f.sdkFloor.bundleBytes)}): ${ms(f.sdkFloor.importMs)} + ${ms(f.sdkFloor.firstCallMs)} = ${ms(f.sdkFloor.totalMs)}, ${f.sdkFloor.ratioToSameIo}× the same-I/O floor (${interval(f.sdkFloor.ratioInterval)}); the function is ${round2(f.totalMs / f.sdkFloor.totalMs)}× that.`
              : '')
          );
        },
        () =>
          f.sdkFloor && f.sdkFloor.ratioInterval[0] > f.budget
            ? `the fixed-SDK floor alone is ${f.sdkFloor.ratioToSameIo}× the same-I/O floor, ${interval(f.sdkFloor.ratioInterval)}`
            : undefined,
      ),
    );
  }
  if (r.warm) {
    const w = r.warm;
    lines.push(line('warm: p99 of our HTTP stack above the bare handler', w.p99OverheadMs, 1, 'ms', () => `p99 ${w.stacked.p99} ms against the bare handler's ${w.bare.p99} ms: per-request work in the middleware.`));
    lines.push(line('warm: first call through our HTTP stack', w.stacked.firstCall, 5, 'ms', () => `the bare handler's first call takes ${w.bare.firstCall} ms: the rest is first-use work in the middleware (a schema compiled, a module loaded).`));
  }
  if (r.onboarding) {
    const o = r.onboarding.median;
    lines.push(
      line('onboarding end to end ÷ its critical path', o.ratio, 1.2, '×', () =>
        `${ms(o.endToEndMs)} against a critical path of ${ms(o.criticalPathMs)} (slug step + slowest branch): the endpoint's own work before the run starts, the RecordOutcome step, and the wait between the run's end and the endpoint noticing it.`,
      ),
    );
  }
  for (const w of r.webhooks ?? []) {
    for (const route of ['payments', 'booking'] as const) {
      const f = w[route];
      const k = MIN_DYNAMO_CALLS[route];
      lines.push(
        line(`webhook ack p50, ${route}, ${w.name} (${w.requests} at ${w.concurrency} concurrent) ÷ (empty route + ${k} DynamoDB call${k > 1 ? 's' : ''})`, f.ratio, WEBHOOK_BUDGET, '×', () =>
          `p50 ${ms(f.p50)} against a floor of ${ms(f.floorMs)} (empty route ${ms(w.emptyRoute.p50)} + ${k} × ${ms(w.dynamoCallP50)}, one local DynamoDB call under the same concurrency). ` +
          `Each request made ${f.dynamoCallsPerRequest} DynamoDB calls where ${k} must be made; every call beyond that queues in dynalite (one process, one call at a time) behind the other requests' calls. Answers: ${answers(f.answers)}` +
            (Object.keys(f.answers).some((a) => a.startsWith('5')) ? ' (a 5xx is a delivery the provider sends again: for payments, the billing of the one account every event is about changed under ten attempts in a row).' : '.'),
        ),
      );
    }
  }
  if (r.timingGap) {
    const g = r.timingGap;
    lines.push(
      line(`forgot-password: known vs unknown address, gap between medians (${g.pairs} pairs, vendors at ${g.vendorLatencyMs} ms)`, g.gap, TIMING_GAP_BUDGET, '', () =>
        `known addresses answered in a median ${ms(g.knownMs)}, unknown ones in ${ms(g.unknownMs)}: the ${g.knownMs > g.unknownMs ? 'known' : 'unknown'} path makes vendor calls the other does not (each costs about ${g.vendorLatencyMs} ms here).`,
      ),
    );
  }
  if (r.burst) {
    const b = r.burst;
    lines.push(
      line(`burst: ${b.onboardings} onboardings at once, first submission to last run's end ÷ the least the vendors' limits allow`, b.ratio, BURST_BUDGET, '×', () =>
        `${ms(b.wallMs)} against ${ms(b.minimumMs)}, ${b.busiest}'s ${b.perVendor[b.busiest]!.calls} calls at its limit. The service paces to 95% of each limit (and so that a call 150 ms late cannot overflow a window), a few of its steps wait in a Wait state past their slot, and the last run's remaining steps follow its last call to the busiest vendor.`,
      ),
    );
  }
  return lines;
}

const answers = (a: Record<string, number>) => Object.entries(a).map(([k, n]) => `${k}: ${n}`).join(', ');

export function markdown(r: BenchResults): string {
  const lines = budgets(r);
  const over = lines.filter((l) => l.over);
  const out: string[] = [];
  out.push(`# Bench report, ${r.startedAt}`);
  out.push('');
  out.push(
    `Node ${r.machine.node}, ${r.machine.cpus} × ${r.machine.cpuModel}, ${r.machine.platform}; load average at the start ${r.machine.loadAverage.map((n) => n.toFixed(1)).join(' / ')}. Settings: ${Object.entries(r.settings).map(([k, v]) => `${k} ${v}`).join(', ')}.`,
  );
  out.push('Every ratio compares figures measured side by side in this run: medians over rounds, each round running every function beside its floors, in a shuffled order.');
  out.push('');
  const unmeetable = over.filter((l) => l.unmeetable);
  out.push(`## Budgets: ${lines.length - over.length} of ${lines.length} budgets met`);
  out.push('');
  if (unmeetable.length) {
    out.push(
      `Of the ${over.length} not met, ${unmeetable.length} cannot be met with the packages the customer fixed: for each, a floor measured in this run (the function's own requests made through the fixed packages' clients by a bare handler) is already over the budget, all of its 95% bootstrap interval over the rounds (whole rounds resampled). Their verdicts say so; the budgets stay as they are.`,
    );
    out.push('');
  }
  out.push('| Figure | Measured | Budget | Verdict |');
  out.push('|---|---:|---:|---|');
  for (const l of lines) out.push(`| ${l.figure} | ${l.measured}${l.unit} | ${l.budget}${l.unit} | ${l.over ? `**over by ${pct(l.overBy)}**${l.unmeetable ? ` (cannot be met: ${l.unmeetable})` : ''}` : 'met'} |`);

  if (over.length) {
    out.push('');
    out.push('## Over budget: by how much, and why');
    out.push('');
    for (const l of over) out.push(`- **${l.figure}**: ${l.measured}${l.unit} against ${l.budget}${l.unit}, over by ${pct(l.overBy)}. ${l.why}`);
  }

  if (r.coldStarts) {
    const c = r.coldStarts;
    out.push('');
    out.push('## Cold start per function');
    out.push('');
    out.push(
      `A fresh Node process (the Lambda environment's NODE_OPTIONS, node:http preloaded as the runtime client has it) loads the bundle (load) and answers one real request (first answer). Floors, run beside each function in every round: the empty handler (${kb(c.floor.bundleBytes)}; ${c.floor.samples} runs, median ${ms(c.floor.totalMs)}: load ${ms(c.floor.importMs)}, answer ${ms(c.floor.firstCallMs)}), and each function's same-I/O floor, a bare handler that replays the requests the function's own first call made (node:http with SigV4 for AWS; vendors' as they were sent: node:http, our adapters' transport, or fetch, which Resend's SDK uses). The fixed-SDK floor makes the same requests through the clients of the packages the customer fixed: the AWS ones through the @aws-sdk clients (only the clients and commands they need), Supabase Auth's through the supabase-js call that sends each, the other vendors' bare after their client is made: a lower bound for any function making them with those packages.`,
    );
    out.push('');
    out.push('| Function | Bundle | Load | First answer | Total | Its I/O | Same-I/O floor (load + answer = total) | Fixed-SDK floor (× same-I/O) | × empty | × its floor | × fixed-SDK floor | Budget | Request → answers |');
    out.push('|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|');
    for (const f of c.functions) {
      const floor = f.floor.kind === 'same-I/O floor' ? `${ms(f.floor.importMs)} + ${ms(f.floor.firstCallMs)} = ${ms(f.floor.totalMs)}` : '(the empty handler)';
      const sdk = f.sdkFloor ? `${ms(f.sdkFloor.totalMs)} (${f.sdkFloor.ratioToSameIo}×)` : '';
      out.push(
        `| ${f.key} | ${kb(f.bundleBytes)} | ${ms(f.importMs)} | ${ms(f.firstCallMs)} | ${ms(f.totalMs)} | ${f.io} | ${floor} | ${sdk} | ${f.ratioToEmpty} | ${f.floor.kind === 'same-I/O floor' ? round2(f.totalMs / f.floor.totalMs) : f.ratioToEmpty} | ${f.sdkFloor ? round2(f.totalMs / f.sdkFloor.totalMs) : ''} | ${f.budget}× ${f.budget === 1.3 ? 'empty' : 'floor'} | ${f.request} → ${f.answers.join(', ')} |`,
      );
    }
  }
  if (r.coldStarts?.failures.length) {
    out.push('');
    out.push('## Timed runs that failed or hung (left out of the medians)');
    out.push('');
    for (const f of r.coldStarts.failures) out.push(`- ${f.key}: ${f.message}${f.requests ? `; its requests: ${f.requests.join(' → ')}` : ''}`);
  }
  if (r.coldStarts?.variants.length) {
    out.push('');
    out.push('## Measured the other way');
    out.push('');
    out.push('| Alternative | Bundle | Load | First answer | Total | × what it is compared with |');
    out.push('|---|---:|---:|---:|---:|---|');
    for (const v of r.coldStarts.variants) out.push(`| ${v.label} | ${kb(v.bundleBytes)} | ${ms(v.importMs)} | ${ms(v.firstCallMs)} | ${ms(v.totalMs)} | ${v.ratio} × ${v.of} |`);
  }
  if (r.warm) {
    const w = r.warm;
    out.push('');
    out.push('## Warm requests: our HTTP stack against a bare handler');
    out.push('');
    out.push(`${w.processes} processes × ${w.callsPerProcess} calls of each, alternating; the first call is the first after loading the bundle.`);
    out.push('');
    out.push('| Handler | p50 | p99 | First call |');
    out.push('|---|---:|---:|---:|');
    out.push(`| HTTP stack (validation, CORS, logs, errors) | ${w.stacked.p50} ms | ${w.stacked.p99} ms | ${w.stacked.firstCall} ms |`);
    out.push(`| bare handler | ${w.bare.p50} ms | ${w.bare.p99} ms | ${w.bare.firstCall} ms |`);
  }
  if (r.onboarding) {
    const o = r.onboarding;
    out.push('');
    out.push(`## Onboarding end to end, every vendor call delayed ${o.vendorLatencyMs} ms`);
    out.push('');
    out.push('| Run | End to end | Slug step | Slowest branch | Critical path | All branches one after another | Ratio |');
    out.push('|---:|---:|---:|---:|---:|---:|---:|');
    o.runs.forEach((run, i) => {
      const [slowName, slowMs] = Object.entries(run.branchMs).sort((a, b) => b[1] - a[1])[0]!;
      out.push(`| ${i + 1} | ${ms(run.endToEndMs)} | ${ms(run.slugMs)} | ${slowName} ${ms(slowMs)} | ${ms(run.criticalPathMs)} | ${ms(run.serialMs)} | ${run.ratio} |`);
    });
  }
  for (const w of r.webhooks ?? []) {
    out.push('');
    out.push(`## Webhook acknowledgement, ${w.name}: ${w.requests} deliveries, ${w.concurrency} at a time, ${w.rounds} rounds`);
    out.push('');
    out.push(`One local DynamoDB call under the same concurrency: p50 ${ms(w.dynamoCallP50)} (as many GetItems as deliveries, sent through the same pool in the same rounds).`);
    out.push('');
    out.push(
      'While deliveries are timed, the local Step Functions holds its tasks (on AWS they run in Lambdas of their own, not on the webhook\'s CPU); they run after each round, and their DynamoDB calls are counted apart.',
    );
    out.push('');
    out.push('| Route | p50 | p99 | Floor (empty route + k calls) | ÷ floor | DynamoDB calls per request while answering (k) | Then, per request, in its state machine | Answers |');
    out.push('|---|---:|---:|---:|---:|---:|---:|---|');
    out.push(`| GET /healthz (empty route) | ${ms(w.emptyRoute.p50)} | ${ms(w.emptyRoute.p99)} | | | ${w.emptyRoute.dynamoCallsPerRequest} | | ${answers(w.emptyRoute.answers)} |`);
    for (const route of ['booking', 'payments'] as const) {
      const f = w[route];
      out.push(
        `| POST /webhooks/${route} | ${ms(f.p50)} | ${ms(f.p99)} | ${ms(f.floorMs)} | ${f.ratio} | ${f.dynamoCallsPerRequest} (${MIN_DYNAMO_CALLS[route]}) | ${f.backgroundDynamoCallsPerRequest ?? ''} | ${answers(f.answers)} |`,
      );
    }
  }
  if (r.burst) {
    const b = r.burst;
    out.push('');
    out.push(`## A burst: ${b.onboardings} onboardings submitted at once, vendors enforcing their limits`);
    out.push('');
    out.push(
      `Limits enforced by the emulators and paced to by the service: ${Object.entries(b.limits).map(([k, v]) => `${k} ${v}`).join(', ')}. From the first submission to the last run's end: ${ms(b.wallMs)}; the least the limits allow: ${ms(b.minimumMs)} (${b.busiest}); ratio ${b.ratio}. Runs ended: ${answers(b.answers)}.`,
    );
    out.push('');
    out.push('| Vendor | Calls | Per onboarding | Refused (429) | Least time at its limit | First call | Last call |');
    out.push('|---|---:|---:|---:|---:|---:|---:|');
    const at = (t?: number) => (t === undefined ? '–' : ms(t));
    for (const [vendor, v] of Object.entries(b.perVendor)) {
      out.push(`| ${vendor} | ${v.calls} | ${v.callsPerOnboarding} | ${v.refused} | ${v.minimumMs ? ms(v.minimumMs) : 'not limited'} | ${at(v.firstMs)} | ${at(v.lastMs)} |`);
    }
  }
  if (r.timingGap) {
    const g = r.timingGap;
    out.push('');
    out.push(`## forgot-password: known against unknown addresses, identity and e-mail vendors at ${g.vendorLatencyMs} ms`);
    out.push('');
    out.push(`${g.pairs} pairs, in a random order within each pair. Median known ${ms(g.knownMs)}, unknown ${ms(g.unknownMs)}; gap ${pct(g.gap)} of the smaller. Answers seen: ${g.answers.map((a) => `\`${a}\``).join(', ')}.`);
  }
  out.push('');
  return out.join('\n');
}

const round2 = (n: number) => Math.round(n * 100) / 100;
