// The service as `sls package` builds it, offline and with no AWS credentials:
// the CloudFormation template, one zip per function, and the bundles kept in
// the esbuild work folder. Built once per test run in the folder the unit
// project's global setup provides (tests/support/package-setup.ts): the first
// test file to ask packages, the others wait for it and read the same files.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { hermetic, SLS_BIN } from '../../local/serverless-config.ts';

const run = promisify(execFile);

export interface Template {
  Conditions?: Record<string, unknown>;
  Resources: Record<string, { Type: string; Condition?: string; Properties: Record<string, any> }>;
}

export interface Packaged {
  /** The package folder: the template and the zips. */
  out: string;
  /** serverless-esbuild's work folder (relative to the service); the bundles are in its .build. */
  work: string;
  template: Template;
  /** The pid of the `sls package` process (serverless-esbuild names its zip staging folders with it). */
  packagerPid: number;
}

/** Inside the service, where serverless-esbuild takes its work folder from. */
export const packageWorkFolder = (dir: string) => `.local/esbuild-${basename(dir)}`;

let mine: Promise<Packaged> | undefined;

/** The packaged service, with no settings at all (packaging must not need them). Allow it 6 minutes: two shared cores. */
export function packaged(): Promise<Packaged> {
  mine ??= build();
  return mine;
}

async function build(): Promise<Packaged> {
  const dir = inject('packageDir') ?? mkdtempSync(join(tmpdir(), 'package-'));
  const out = join(dir, 'out');
  const work = packageWorkFolder(dir);
  const done = join(dir, 'done');
  const failed = join(dir, 'failed');
  let first = true;
  try {
    mkdirSync(join(dir, 'lock'));
  } catch {
    first = false;
  }
  if (first) {
    try {
      const packaging = run(process.execPath, [SLS_BIN, 'package', '--stage', 'ci', '--package', out], {
        env: { ...hermetic(process.env, {}), HOME: dir, ESBUILD_WORK_FOLDER: work, SLS_TELEMETRY_DISABLED: '1' },
        maxBuffer: 16 * 1024 * 1024,
      });
      writeFileSync(join(dir, 'packager-pid'), String(packaging.child.pid));
      await packaging;
      writeFileSync(done, '');
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string; message: string };
      writeFileSync(failed, `${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
      throw error;
    }
  } else {
    while (!existsSync(done)) {
      if (existsSync(failed)) throw new Error(`sls package failed (in another test file):\n${readFileSync(failed, 'utf8')}`);
      await sleep(500);
    }
  }
  return {
    out,
    work,
    template: JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8')) as Template,
    packagerPid: Number(readFileSync(join(dir, 'packager-pid'), 'utf8')),
  };
}
