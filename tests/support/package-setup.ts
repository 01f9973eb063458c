// Global setup of the unit project: a folder for `sls package`'s output that
// the test files reading the packaged template share (tests/support/packaged.ts),
// so that the CPU-heavy packaging runs once per test run, not once per file.
// Creating the folder costs nothing; whichever file asks first packages.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { packageWorkFolder } from './packaged.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    packageDir: string;
  }
}

export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'package-'));
  project.provide('packageDir', dir);
  return () => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(packageWorkFolder(dir), { recursive: true, force: true });
  };
}
