import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startStack } from '../../local/stack.ts';

export interface StackInfo {
  urls: { api: string; emulators: string; dynamodb: string; stepFunctions: string; lambda: string };
  env: Record<string, string>;
}

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
  }
}

export default async function setup(project: TestProject) {
  if (Number(process.versions.node.split('.')[0]) !== 24) throw new Error(`Tests run on Node 24, not ${process.version}`);
  const workFolder = `.local/esbuild-test-${process.pid}`;
  const lines: string[] = [];
  const stack = await startStack({
    ports: { api: 0, emulators: 0, lambda: 0, dynamodb: 0, stepFunctions: 0 },
    esbuildWorkFolder: workFolder,
    inProcess: true,
    // Vendors that hang or fail give up sooner here, so fault scenarios finish in seconds.
    settings: { VENDOR_TIMEOUT_MS: '2000', VENDOR_MAX_ATTEMPTS: '3', ONBOARDING_WAIT_MS: '15000' },
    log: (line) => {
      lines.push(line);
      if (lines.length > 400) lines.shift();
    },
  }).catch((error: Error) => {
    console.error(lines.join('\n'));
    throw error;
  });
  project.provide('stack', { urls: stack.urls, env: stack.env });
  return async () => {
    await stack.stop();
    rmSync(workFolder, { recursive: true, force: true });
  };
}
