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
