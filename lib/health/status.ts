// What /status reports: the data store and workflow engine this deployment
// needs, and for each integration whether it is configured, in which mode,
// and whether it answers. Never a credential: endpoints are origins only.

export interface Check {
  configured?: boolean;
  mode?: string;
  endpoint?: string;
  /** null when there is nothing to reach (not configured, or built in). */
  reachable: boolean | null;
  latencyMs?: number;
  error?: string;
}

export type CheckRun = () => Promise<Check>;

export interface StatusDeps {
  dependencies: Record<string, CheckRun>;
  integrations: Record<string, CheckRun>;
  now?: () => Date;
}

export interface StatusReport {
  status: 'ok' | 'degraded' | 'down';
  checkedAt: string;
  dependencies: Record<string, Check>;
  integrations: Record<string, Check>;
}

export async function checkStatus(deps: StatusDeps): Promise<StatusReport> {
  const [dependencies, integrations] = await Promise.all([runAll(deps.dependencies), runAll(deps.integrations)]);
  const down = Object.values(dependencies).some((c) => c.reachable === false);
  const degraded = Object.values(integrations).some((c) => c.configured && c.reachable === false);
  return {
    status: down ? 'down' : degraded ? 'degraded' : 'ok',
    checkedAt: (deps.now?.() ?? new Date()).toISOString(),
    dependencies,
    integrations,
  };
}

/** What anyone may know: whether the service is well, and when that was checked. */
export type OverallStatus = Pick<StatusReport, 'status' | 'checkedAt'>;

export const overallStatus = (report: StatusReport): OverallStatus => ({ status: report.status, checkedAt: report.checkedAt });

/** How long one round of probes answers every /status call of a Lambda instance. */
export const STATUS_TTL_MS = 30_000;

/**
 * The status, probed at most once per `ttlMs` by this instance however many
 * ask: calls while a round of probes runs share it, and its report (failures
 * included: an outage is no reason to probe harder) answers every call until
 * `ttlMs` after it finished. Each vendor so sees one probe per instance per
 * 30 s, whatever the traffic on /status.
 */
export function cachedStatus(deps: StatusDeps, options: { ttlMs?: number; now?: () => number } = {}): () => Promise<StatusReport> {
  const ttlMs = options.ttlMs ?? STATUS_TTL_MS;
  const now = options.now ?? Date.now;
  let latest: { report: Promise<StatusReport>; finishedAt?: number } | undefined;
  return () => {
    if (latest && (latest.finishedAt === undefined || now() - latest.finishedAt < ttlMs)) return latest.report;
    const round: { report: Promise<StatusReport>; finishedAt?: number } = { report: checkStatus(deps) };
    latest = round;
    round.report.then(
      () => (round.finishedAt = now()),
      () => latest === round && (latest = undefined),
    );
    return round.report;
  };
}

async function runAll(checks: Record<string, CheckRun>): Promise<Record<string, Check>> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, run]) => {
      try {
        return [name, await run()] as const;
      } catch (error) {
        return [name, { reachable: false, error: describe(error) }] as const;
      }
    }),
  );
  return Object.fromEntries(entries);
}

/** Times a probe; any answer from the far side counts as reachable. */
export async function timed(probe: () => Promise<unknown>): Promise<Pick<Check, 'reachable' | 'latencyMs' | 'error'>> {
  const started = performance.now();
  try {
    await probe();
    return { reachable: true, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { reachable: false, latencyMs: Math.round(performance.now() - started), error: describe(error) };
  }
}

/** A short, secret-free description: the error's name, never its message (which may echo a URL). */
function describe(error: unknown): string {
  const name = (error as { name?: string } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError' ? 'timed out' : (name ?? 'unreachable');
}
