// Every string a client may send is bounded: each string in a route's body,
// query or path schema declares a maxLength (or is one of fixed values), so
// no field can carry more than its purpose needs.
import { describe, expect, it } from 'vitest';
import { catalog } from '../../../lib/api/catalog.ts';

type Schema = Record<string, unknown>;

/** Every string schema under `schema`, with its JSON pointer in the request. */
function stringsIn(schema: unknown, at: string): { at: string; schema: Schema }[] {
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as Schema;
  const found: { at: string; schema: Schema }[] = [];
  const types = [s.type].flat();
  if (types.includes('string') && s.enum === undefined && s.const === undefined) found.push({ at, schema: s });
  // An object open to any key: its keys are strings too, and must be bounded.
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) {
    found.push({ at: `${at}/(name)`, schema: (s.propertyNames ?? {}) as Schema });
  }
  for (const [key, value] of Object.entries(s)) {
    if (key === 'properties' && value && typeof value === 'object') {
      for (const [name, child] of Object.entries(value)) found.push(...stringsIn(child, `${at}/${name}`));
    } else if (key === 'items' || key === 'additionalProperties' || key === 'not') {
      found.push(...stringsIn(value, `${at}/${key === 'items' ? '*' : '(any)'}`));
    } else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value)) {
      for (const child of value) found.push(...stringsIn(child, at));
    }
  }
  return found;
}

describe('the input schemas of the route catalog', () => {
  for (const route of catalog) {
    it(`${route.method} ${route.path}: every string has a maxLength`, () => {
      const strings = [
        ...stringsIn(route.body, '/body'),
        ...stringsIn(route.query, '/query'),
        ...stringsIn(route.params, '/path'),
      ];
      const unbounded = strings.filter(({ schema }) => typeof schema.maxLength !== 'number').map(({ at }) => at);
      expect(unbounded).toEqual([]);
    });
  }

  it('finds the strings it checks (the walk reaches nested schemas)', () => {
    const onboarding = catalog.find((r) => r.operationId === 'onboardingV2')!;
    const paths = stringsIn(onboarding.body, '/body').map(({ at }) => at);
    expect(paths).toEqual(expect.arrayContaining(['/body/email', '/body/metadata/(name)', '/body/metadata/(any)', '/body/metadata/(any)/*', '/body/metadata/(any)/(name)']));
  });
});
