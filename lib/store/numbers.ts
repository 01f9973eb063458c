// What a number must be for the store to hold it, as the document client
// writes it (lib/store/dynamodb.ts). The client refuses to write an integer
// beyond ±(2^53 - 1), which a double cannot hold exactly (@aws-sdk/util-dynamodb,
// convertToAttr: "Number ... is greater than Number.MAX_SAFE_INTEGER"), and
// DynamoDB refuses a magnitude below 1e-130 other than zero ("Number underflow";
// its numbers run from 1E-130 to 9.9999999999999999999999999999999999999E+125).
// A caller's number that is stored goes through here, or through the schema
// below: never a 500 for a number it could not keep.

/** The smallest magnitude, other than zero, DynamoDB holds. */
const LEAST = 1e-130;

export const isStorableNumber = (n: number): boolean =>
  Number.isFinite(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER && (n === 0 || Math.abs(n) >= LEAST);

/** The same rule as a JSON Schema, for a request field that is stored. */
export const storableNumber = {
  anyOf: [
    { const: 0 },
    { type: 'number', minimum: LEAST, maximum: Number.MAX_SAFE_INTEGER },
    { type: 'number', minimum: -Number.MAX_SAFE_INTEGER, maximum: -LEAST },
  ],
  description: `A number the store can hold: at most ${Number.MAX_SAFE_INTEGER} in magnitude, and zero or at least 1e-130`,
} as const;
