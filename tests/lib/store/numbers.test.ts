// A stored number: the schema, the check and the document client agree on what the store can hold.
import { marshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validatorFor } from '../../../lib/http/validators.ts';
import { isStorableNumber, storableNumber } from '../../../lib/store/numbers.ts';

const schemaAccepts = validatorFor(storableNumber as unknown as Record<string, unknown>);
const clientWrites = (n: number) => {
  try {
    marshall({ n });
    return true;
  } catch {
    return false;
  }
};

describe('a storable number', () => {
  it('is what the schema accepts, and the document client writes every one of them', () => {
    const edges = [0, -0, 1, -1, 0.5, 1e-130, -1e-130, 9.99e-131, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 1e16, 1e300, 1e-200, Number.MIN_VALUE];
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...edges), fc.double({ noNaN: true, noDefaultInfinity: true })), (n) => {
        expect(schemaAccepts(n), String(n)).toBe(isStorableNumber(n));
        if (isStorableNumber(n)) expect(clientWrites(n), String(n)).toBe(true);
      }),
      { numRuns: 5000 },
    );
    expect([1e16, 1e300, 1e-200, 2 ** 53, Number.MIN_VALUE, -1e16].map(isStorableNumber)).toEqual([false, false, false, false, false, false]);
    expect([0, 1e-130, 2 ** 53 - 1, -2.5].map(isStorableNumber)).toEqual([true, true, true, true]);
  });
});
