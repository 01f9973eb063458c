// Every setting the code reads is documented in .env.example and passed to
// the Lambdas by serverless.yml; nothing is listed that the code ignores.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const configSource = readFileSync('lib/config.ts', 'utf8');
const read = new Set([...configSource.matchAll(/r\.\w+\('([A-Z0-9_]+)'/g)].map((m) => m[1]!));
const example = new Set([...readFileSync('.env.example', 'utf8').matchAll(/^([A-Z0-9_]+)=/gm)].map((m) => m[1]!));
const yml = readFileSync('serverless.yml', 'utf8');
const passed = new Set([...yml.matchAll(/^ {4}([A-Z0-9_]+):/gm)].map((m) => m[1]!));
// Set by the platform, or by serverless.yml itself (any value not taken from the deployer's ${env:...}).
const fromServerless = [...yml.matchAll(/^ {4}([A-Z0-9_]+): (?!\$\{env:)/gm)].map((m) => m[1]!);
const platform = new Set(['AWS_REGION', ...fromServerless]);
// Deploy-time settings: serverless.yml reads them itself (custom.operations), no Lambda gets them.
const declared = parse(yml, { logLevel: 'silent' }) as { custom: { operations: Record<string, string>; settings: Record<string, string> } };
const deployTime = new Set(Object.values(declared.custom.operations).map((v) => /^\$\{env:([A-Z0-9_]+)/.exec(v)?.[1]));

describe('settings', () => {
  it('documents every setting the code reads in .env.example', () => {
    const missing = [...read].filter((k) => !platform.has(k) && !example.has(k));
    expect(missing).toEqual([]);
  });

  it('passes every setting the code reads to the Lambdas', () => {
    const missing = [...read].filter((k) => k !== 'AWS_REGION' && !passed.has(k));
    expect(missing).toEqual([]);
  });

  it('reads the environment only in lib/config.ts, by literal names (how each function gets exactly its own settings)', () => {
    const sources = ['lib', 'functions'].flatMap((dir) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f))).filter((f) => f.endsWith('.ts'));
    // lib/time-zones.ts sets TZ for a moment to read a zone's wall clock: that is no setting.
    const notSettings = (f: string) => (f === join('lib', 'time-zones.ts') ? /process\.env(?!\.(AWS_LAMBDA_FUNCTION_NAME|TZ)\b)/ : /process\.env(?!\.AWS_LAMBDA_FUNCTION_NAME\b)/);
    const elsewhere = sources.filter((f) => f !== join('lib', 'config.ts') && notSettings(f).test(readFileSync(f, 'utf8')));
    expect(elsewhere).toEqual([]);
    expect(configSource).not.toMatch(/\br\.\w+\((?!'[A-Z0-9_]+')/);
  });

  it('documents nothing that neither the code nor the deployment reads', () => {
    const extra = [...example].filter((k) => !read.has(k) && !deployTime.has(k));
    expect(extra).toEqual([]);
  });

  it('documents every deploy-time setting, and gives none of them to a Lambda', () => {
    expect(deployTime.size).toBeGreaterThanOrEqual(3);
    for (const name of deployTime) {
      expect(name).toMatch(/^[A-Z0-9_]+$/);
      expect(example.has(name!), name).toBe(true);
      expect(read.has(name!), name).toBe(false);
      expect(Object.keys(declared.custom.settings), name).not.toContain(name);
    }
  });
});
