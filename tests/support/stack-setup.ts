// Global setup of the projects that test the running service: each starts its
// own whole local stack on free ports, in memory, and hands its addresses to
// the tests. Projects get their own stacks so that one project's global faults
// (see tests/faults) never reach another's tests.
import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { START_SETTINGS } from '../../local/serverless-config.ts';
import { startStack } from '../../local/stack.ts';

export interface StackInfo {
  urls: { api: string; emulators: string; dynamodb: string; stepFunctions: string; lambda: string; dashboard: string; portal: string };
  env: Record<string, string>;
  /** serverless-esbuild's work folder for this stack, relative to the service: its bundles are under .build/. */
  workFolder: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
  }
}

/**
 * The vendors' rate limits, enforced by the emulators and paced to by the service, with their windows
 * made shorter than the published ones so that the suites' hundreds of onboardings take seconds, not
 * the half hour ClickUp's 100 a minute would take.
 */
const FAST_VENDORS = { CLICKUP_RATE_LIMIT: '100/1', RESEND_RATE_LIMIT: '50/1', SLACK_RATE_LIMIT: '20/1', CLOSE_RATE_LIMIT: '50/1' };

/** Per project: vendors that fail or hang give up sooner than in production, so fault scenarios end in seconds. */
const settingsFor: Record<string, Record<string, string>> = {
  // A subscription's grace period before offboarding: seconds, so a test sees a client leave.
  e2e: { VENDOR_TIMEOUT_MS: '2000', VENDOR_MAX_ATTEMPTS: '3', ONBOARDING_WAIT_MS: '15000', OFFBOARDING_GRACE_SECONDS: '20', ...FAST_VENDORS },
  faults: { VENDOR_TIMEOUT_MS: '1000', VENDOR_MAX_ATTEMPTS: '2', ONBOARDING_WAIT_MS: '20000', ...FAST_VENDORS },
  // Resend, Slack and Close at their published limits; ClickUp's 100 in 12 s, so fifty clients take a couple of minutes, not eight.
  burst: {
    VENDOR_TIMEOUT_MS: '2000',
    VENDOR_MAX_ATTEMPTS: '3',
    ONBOARDING_WAIT_MS: '1000',
    CLICKUP_RATE_LIMIT: '100/12',
    RESEND_RATE_LIMIT: '5/1',
    SLACK_RATE_LIMIT: '1/1',
    CLOSE_RATE_LIMIT: '20/1',
  },
  // The guides are written for `npm start`: its settings, the vendors at their published limits.
  guides: { ...START_SETTINGS },
};

/** A whole local stack on free ports with the settings of the project `name`; a taken port is retried. */
export async function startTestStack(name: string): Promise<{ info: StackInfo; stop: () => Promise<void> }> {
  if (Number(process.versions.node.split('.')[0]) !== 24) throw new Error(`Tests run on Node 24, not ${process.version}`);
  const workFolder = `.local/esbuild-test-${name}-${process.pid}`;
  const lines: string[] = [];
  const start = () =>
    startStack({
      ports: { api: 0, emulators: 0, lambda: 0, dynamodb: 0, stepFunctions: 0 },
      esbuildWorkFolder: workFolder,
      inProcess: true,
      settings: settingsFor[name] ?? settingsFor.e2e,
      log: (line) => {
        lines.push(line);
        if (lines.length > 400) lines.shift();
      },
    });
  // A free port can still be taken by another process before serverless-offline binds it: start again on new ones.
  let stack: Awaited<ReturnType<typeof startStack>> | undefined;
  for (let attempt = 1; !stack; attempt++) {
    try {
      stack = await start();
    } catch (error) {
      const portTaken = [String(error), ...lines].some((line) => line.includes('EADDRINUSE'));
      if (!portTaken || attempt === 3) {
        console.error(lines.join('\n'));
        throw error;
      }
      lines.length = 0;
    }
  }
  const started = stack;
  return {
    info: { urls: started.urls, env: started.env, workFolder },
    stop: async () => {
      await started.stop();
      rmSync(workFolder, { recursive: true, force: true });
    },
  };
}

export default async function setup(project: TestProject) {
  const stack = await startTestStack(project.name);
  project.provide('stack', stack.info);
  return stack.stop;
}
