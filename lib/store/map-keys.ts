// What a key of a caller's free-form map (onboarding metadata, a membership's
// custom fields) must be for the store to hold it, as the document client
// writes it (lib/store/dynamodb.ts). @aws-sdk/util-dynamodb's convertToAttr
// takes an object's own `constructor` for its class: a map with that key is
// refused ("Unsupported type passed"), or, with a value named "Set" or "Map",
// converted as one and broken. `__proto__` and `prototype` are kept out with
// it: whatever reads the map back must not find them either. A caller's map
// that is stored goes through the schema below, or through isStorableKey.

const RESERVED = ['constructor', '__proto__', 'prototype'];

export const isStorableKey = (key: string): boolean => key.length > 0 && key.length <= 64 && !RESERVED.includes(key);

/** The same rule as a JSON Schema, for the property names of a request's map that is stored. */
export const storableKey = {
  minLength: 1,
  maxLength: 64,
  not: { enum: RESERVED },
  description: `A key of 1 to 64 characters, other than ${RESERVED.join(', ')}`,
} as const;
