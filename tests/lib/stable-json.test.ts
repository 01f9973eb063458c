import { describe, expect, it } from 'vitest';
import { stableJson } from '../../lib/stable-json.ts';

describe('stableJson', () => {
  it('gives equal text for equal values, whatever the key order, leaving undefined members out', () => {
    expect(stableJson({ b: 1, a: { d: [1, { z: 2, y: undefined }], c: null } })).toBe(stableJson({ a: { c: null, d: [1, { z: 2 }] }, b: 1 }));
    expect(stableJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });

  it('orders keys by code unit, never by the locale (upper case before lower, é after z)', () => {
    expect(stableJson({ a: 1, B: 2, é: 3, z: 4 })).toBe('{"B":2,"a":1,"z":4,"é":3}');
  });
});
