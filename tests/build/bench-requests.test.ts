import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { probedHttpFunctions } from '../../bench/requests.ts';

// The bench's cold-start probe sends each HTTP function the request a real
// caller would (bench/requests.ts) and stops when one has none: a function
// added to serverless.yml without its request would only be found by the
// next `npm run bench`, ten minutes in.
describe('the bench', () => {
  it('has a cold-start request for every HTTP function serverless.yml declares', () => {
    const declared = parse(readFileSync('serverless.yml', 'utf8'), { logLevel: 'silent' }) as { functions: Record<string, { events?: { httpApi?: unknown }[] }> };
    const httpFunctions = Object.entries(declared.functions)
      .filter(([, fn]) => (fn.events ?? []).some((e) => e.httpApi !== undefined))
      .map(([key]) => key);
    expect(httpFunctions.length).toBeGreaterThan(0);
    expect(httpFunctions.filter((key) => !probedHttpFunctions().includes(key))).toEqual([]);
  });
});
