// The whole service on one machine, with nothing to sign up for:
//   dynalite (DynamoDB) · the local Step Functions endpoint · the vendor
//   emulator host · serverless-offline (API Gateway + Lambda) · reference
//   pages at the dashboard's and the portal's addresses (local/pages).
// `npm start` runs it on the fixed ports below; the test suite runs its own
// on free ports, so both can run side by side.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { consoleFilter } from './console-filter.ts';
import { createTables, startDynamo } from './dynamodb.ts';
import { startEmulatorHost, type Rate } from './emulators/host.ts';
import { localVendors, type EmulatorContext } from './emulators/index.ts';
import { serveReferencePages, type Site } from './pages/server.ts';
import { serviceView, type ServiceView } from './service-view.ts';
import { hermetic, resolveService, SLS_BIN } from './serverless-config.ts';
import { StepFunctionsEngine } from './stepfunctions/engine.ts';
import { lambdaInvoker } from './stepfunctions/lambda-invoker.ts';
import { localMachines } from './stepfunctions/machines.ts';
import { serveStepFunctions } from './stepfunctions/server.ts';

export const DEFAULT_PORTS = { api: 10000, emulators: 10001, lambda: 3002, dynamodb: 8000, stepFunctions: 8083, dashboard: 3000, portal: 3001 };
/** The reference pages' ports may be left out: they then take free ones. */
export type Ports = Omit<typeof DEFAULT_PORTS, Site> & Partial<Pick<typeof DEFAULT_PORTS, Site>>;

export const LOCAL_STAGE = 'local';
export const LOCAL_REGION = 'eu-west-1';

export interface StackOptions {
  /** 0 picks a free port. */
  ports: Ports;
  /** Where data persists between runs; in memory when absent. */
  dataDir?: string;
  /** serverless-esbuild's work folder (separate ones let two stacks run at once). */
  esbuildWorkFolder?: string;
  /** Rebuild and reload a handler when its source changes. */
  watch?: boolean;
  /**
   * Run handlers in offline's own process instead of a worker thread per
   * concurrent invocation: each function's module loads once, which keeps
   * bursts of invocations (load and concurrency tests) cheap on a small
   * machine. Handlers are stateless, so they behave the same either way.
   */
  inProcess?: boolean;
  /**
   * Extra or overriding service settings, e.g. shorter timeouts in tests.
   * A DASHBOARD_URL or PORTAL_URL here is a front end of your own: the stack
   * then serves no reference pages for that site.
   */
  settings?: Record<string, string>;
  log?: (line: string) => void;
  /** Aborting it while the stack starts stops what has started, and startStack rejects. */
  signal?: AbortSignal;
}

export interface Stack {
  ports: Ports;
  urls: { api: string; emulators: string; dynamodb: string; stepFunctions: string; lambda: string; dashboard: string; portal: string };
  /** The sites whose reference pages this stack serves (those without a DASHBOARD_URL or PORTAL_URL of their own). */
  pages: Site[];
  /** The settings the Lambdas run with. */
  env: Record<string, string>;
  engine: StepFunctionsEngine;
  /** How many DynamoDB requests the local DynamoDB has answered. */
  dynamoRequests(): number;
  stop(): Promise<void>;
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const log = options.log ?? (() => {});
  const ports: Ports = { ...options.ports };
  // The sites given no address of their own get reference pages, on a free port unless one is named.
  const pages = (['dashboard', 'portal'] as const).filter((site) => !options.settings?.[siteSetting[site]]);
  for (const site of pages) ports[site] ??= 0;
  for (const key of Object.keys(ports) as (keyof Ports)[]) if (ports[key] === 0) ports[key] = await freePort();
  const frontEnds = {
    dashboard: options.settings?.DASHBOARD_URL ?? `http://localhost:${ports.dashboard}`,
    portal: options.settings?.PORTAL_URL ?? `http://localhost:${ports.portal}`,
  };

  const cleanups: (() => Promise<void> | void)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };

  try {
    const dynamo = await startDynamo(ports.dynamodb, options.dataDir && join(options.dataDir, 'dynamodb'));
    cleanups.push(dynamo.stop);

    const ctx: EmulatorContext = {
      hostUrl: `http://localhost:${ports.emulators}`,
      apiUrl: `http://localhost:${ports.api}`,
      dashboardUrl: frontEnds.dashboard,
      portalUrl: frontEnds.portal,
    };
    // The console reads the service's tables once they exist.
    let readService: (() => Promise<ServiceView>) | undefined;
    const host = await startEmulatorHost({
      port: ports.emulators,
      stateFile: options.dataDir && join(options.dataDir, 'emulators.json'),
      service: async () => readService?.(),
    });
    cleanups.push(host.stop);
    const emulators = localVendors.map((vendor) => vendor.create(ctx));
    for (const emulator of emulators) host.register(emulator);

    for (const site of pages) {
      const server = await serveReferencePages({
        site,
        port: ports[site]!,
        config: { apiUrl: ctx.apiUrl, dashboardUrl: frontEnds.dashboard, portalUrl: frontEnds.portal },
      });
      cleanups.push(server.stop);
    }

    const env: Record<string, string> = {
      ...baseSettings(ports, frontEnds),
      ...Object.assign({}, ...localVendors.map((v) => v.env(ctx))),
      ...options.settings,
    };
    // A vendor's limit, when set, is the one the service paces to and the one its emulator enforces.
    for (const emulator of emulators) {
      const setting = emulator.rateLimit && env[emulator.rateLimit.setting];
      if (setting) host.setLimit(emulator.vendor, rateOf(emulator.rateLimit!.setting, setting));
    }

    const processEnv = hermetic(process.env, env);
    const svc = await resolveService(LOCAL_STAGE, processEnv);
    const created = await createTables(dynamo.endpoint, svc);
    if (created.length) log(`created tables: ${created.join(', ')}`);
    readService = serviceView({ endpoint: dynamo.endpoint, region: svc.region, tablePrefix: `${svc.service}-${svc.stage}-` });

    const engine = new StepFunctionsEngine(
      localMachines(svc),
      lambdaInvoker(`http://127.0.0.1:${ports.lambda}`, LOCAL_REGION),
      options.dataDir && join(options.dataDir, 'executions'),
    );
    const sfnServer = await serveStepFunctions(engine, ports.stepFunctions);
    cleanups.push(async () => {
      engine.shutdown();
      await sfnServer.stop();
    });

    const offline = spawnOffline(ports, processEnv, options, log);
    cleanups.push(() => stopProcess(offline));
    if (options.esbuildWorkFolder) cleanups.push(() => rmSync(options.esbuildWorkFolder!, { recursive: true, force: true }));

    await waitForHealth(`http://localhost:${ports.api}/health`, offline, options.signal);

    return {
      ports,
      urls: {
        api: `http://localhost:${ports.api}`,
        emulators: host.url,
        dynamodb: dynamo.endpoint,
        stepFunctions: sfnServer.endpoint,
        lambda: `http://127.0.0.1:${ports.lambda}`,
        ...frontEnds,
      },
      pages,
      env,
      engine,
      dynamoRequests: dynamo.requests,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A vendor limit setting, as lib/config.ts reads it: "<count>/<seconds>", or "none". */
function rateOf(name: string, value: string): Rate | null {
  if (value === 'none') return null;
  const m = /^(\d+)\/(\d+)$/.exec(value);
  if (!m || Number(m[1]) === 0 || Number(m[2]) === 0) throw new Error(`${name} must look like <count>/<seconds> or none, not ${value}`);
  return { limit: Number(m[1]), windowSeconds: Number(m[2]) };
}
const siteSetting = { dashboard: 'DASHBOARD_URL', portal: 'PORTAL_URL' } as const;

/** Settings every local run has: where AWS services are, and the service's own URLs and keys. */
function baseSettings(ports: Ports, frontEnds: Record<Site, string>): Record<string, string> {
  return {
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${ports.dynamodb}`,
    AWS_ENDPOINT_URL_SFN: `http://127.0.0.1:${ports.stepFunctions}`,
    AWS_ENDPOINT_URL_LAMBDA: `http://127.0.0.1:${ports.lambda}`,
    LOG_LEVEL: 'info',
    PORTAL_URL: frontEnds.portal,
    DASHBOARD_URL: frontEnds.dashboard,
    PUBLIC_API_URL: `http://localhost:${ports.api}`,
    INTERNAL_API_KEY: 'local-internal-api-key',
    ADMIN_API_KEY: 'local-admin-api-key',
    CRAWLER_ALLOW_PRIVATE_NETWORKS: 'true',
  };
}

function spawnOffline(ports: Ports, env: Record<string, string>, options: StackOptions, log: (line: string) => void): ChildProcess {
  // Stops the group if this process ends without stopping it (local/orphan-guard.ts).
  const guard = new URL('./orphan-guard.ts', import.meta.url).href;
  const args = ['--import', guard, SLS_BIN, 'offline', 'start', '--stage', LOCAL_STAGE, '--httpPort', String(ports.api), '--lambdaPort', String(ports.lambda)];
  if (options.watch) args.push('--reloadHandler');
  if (options.inProcess) args.push('--useInProcess');
  const child = spawn(process.execPath, args, {
    env: {
      ...env,
      ...(options.esbuildWorkFolder ? { ESBUILD_WORK_FOLDER: options.esbuildWorkFolder } : {}),
      // What serverless-esbuild watches and rebuilds on a change (serverless.yml, custom.esbuildWatch).
      ESBUILD_WATCH: options.watch ? 'sources' : 'nothing',
      LOCAL_STACK_PARENT_PID: String(process.pid),
      SLS_TELEMETRY_DISABLED: '1',
      SLS_NOTIFICATIONS_MODE: 'off',
      FORCE_COLOR: '0',
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Failures the design expects print as one line each, not offline's block with a stack (console-filter.ts).
  const forward = (stream: NodeJS.ReadableStream) => {
    const filter = consoleFilter();
    let partial = ''; // a chunk may end inside a line
    let idle: NodeJS.Timeout | undefined;
    const flush = (ended = false) => {
      if (partial.trim()) filter.push(partial).forEach(log);
      partial = '';
      (ended ? filter.end() : filter.flush()).forEach(log);
      if (!ended && filter.waiting()) idle = setTimeout(flush, 250).unref();
    };
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) if (line.trim()) filter.push(line).forEach(log);
      clearTimeout(idle);
      idle = setTimeout(flush, 250).unref();
    });
    stream.on('end', () => {
      clearTimeout(idle);
      flush(true);
    });
  };
  forward(child.stdout!);
  forward(child.stderr!);
  return child;
}

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

async function waitForHealth(url: string, child: ChildProcess, signal?: AbortSignal, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    if (hasExited(child)) throw new Error(`serverless-offline exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`The API did not answer ${url} within ${timeoutMs / 1000} s`);
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (hasExited(child) || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s); // the whole group: offline and its esbuild service
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/**
 * A port free now, below Linux's ephemeral range (32768 and up): a port the
 * kernel hands out for listen(0) comes from that range, and so do the source
 * ports of outgoing connections, which could take it in the seconds before
 * serverless-offline, after bundling, binds it.
 */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}
