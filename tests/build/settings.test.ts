// Every setting the code reads is documented in .env.example and passed to
// the Lambdas by serverless.yml; nothing is listed that the code ignores.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const configSource = readFileSync('lib/config.ts', 'utf8');
const read = new Set([...configSource.matchAll(/r\.\w+\('([A-Z0-9_]+)'/g)].map((m) => m[1]!));
const example = new Set([...readFileSync('.env.example', 'utf8').matchAll(/^([A-Z0-9_]+)=/gm)].map((m) => m[1]!));
const yml = readFileSync('serverless.yml', 'utf8');
const passed = new Set([...yml.matchAll(/^ {4}([A-Z0-9_]+):/gm)].map((m) => m[1]!));
// Set by the platform or by serverless.yml itself, not by the deployer.
const platform = new Set([
  'AWS_REGION',
  'STAGE',
  'TABLE_PREFIX',
  'SERVICE_NAME',
  'NODE_OPTIONS',
  'ONBOARDING_STATE_MACHINE_ARN',
  'ENHANCED_ONBOARDING_STATE_MACHINE_ARN',
  'CRAWLER_REFRESH_STATE_MACHINE_ARN',
]);

describe('settings', () => {
  it('documents every setting the code reads in .env.example', () => {
    const missing = [...read].filter((k) => !platform.has(k) && !example.has(k));
    expect(missing).toEqual([]);
  });

  it('passes every setting the code reads to the Lambdas', () => {
    const missing = [...read].filter((k) => k !== 'AWS_REGION' && !passed.has(k));
    expect(missing).toEqual([]);
  });

  it('documents nothing the code does not read', () => {
    const extra = [...example].filter((k) => !read.has(k));
    expect(extra).toEqual([]);
  });
});
