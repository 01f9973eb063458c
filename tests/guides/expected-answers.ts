// The answers a guide shows, and how an answer is held to them.
//   # → 201 {"accountId":"…","role":"admin"}     the last HTTP answer: its status, and the fields shown
//   # → 303                                      the status only
//   # → location: http://localhost:10001/…       a line the command printed
//   # → eventually 200 {"plan":"pro"}            the same, once the commands above it, run again, give it
// `…` stands for any text (in a string, or as a whole value: any value). An object shows some of its
// fields; an array shows all its items, or its first ones followed by "…".

export interface Expectation {
  /** Where it is written: file:line. */
  where: string;
  eventually: boolean;
  status?: number;
  json?: unknown;
  text?: string;
}

export const ANY = '…';

export function parseExpectation(line: string, where: string): Expectation {
  let rest = line.replace(/^\s*#\s*→\s*/, '');
  const expectation: Expectation = { where, eventually: false };
  if (/^eventually\b/.test(rest)) {
    expectation.eventually = true;
    rest = rest.replace(/^eventually\s*/, '');
  }
  const status = /^([1-5]\d\d)(?:\s+|$)/.exec(rest);
  if (status) {
    expectation.status = Number(status[1]);
    rest = rest.slice(status[0].length);
  }
  rest = rest.trim();
  if (rest.startsWith('{') || rest.startsWith('[')) {
    try {
      expectation.json = JSON.parse(rest);
    } catch (error) {
      throw new Error(`${where}: the answer shown after → is not JSON (${(error as Error).message}): ${rest}`);
    }
  } else if (rest) expectation.text = rest;
  if (expectation.status === undefined && expectation.json === undefined && expectation.text === undefined) {
    throw new Error(`${where}: → shows no answer (a status, JSON, or a line of output)`);
  }
  return expectation;
}

/** A pattern where `…` stands for any text. */
function textPattern(shown: string): RegExp {
  return new RegExp(`^${shown.split(ANY).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*')}$`);
}

/** Where `actual` differs from what `shown` shows of it, one line per difference; none when it matches. */
export function differences(actual: unknown, shown: unknown, path = ''): string[] {
  const at = path || '(the answer)';
  if (shown === ANY) return actual === undefined ? [`${at}: missing`] : [];
  if (typeof shown === 'string') {
    if (typeof actual !== 'string') return [`${at}: ${JSON.stringify(actual)}, not a string like ${JSON.stringify(shown)}`];
    return textPattern(shown).test(actual) ? [] : [`${at}: ${JSON.stringify(actual)}, not ${JSON.stringify(shown)}`];
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return [`${at}: ${JSON.stringify(actual)}, not an array`];
    const open = shown.at(-1) === ANY;
    const items = open ? shown.slice(0, -1) : shown;
    if (open ? actual.length < items.length : actual.length !== items.length) {
      return [`${at}: ${actual.length} items, not ${open ? 'at least ' : ''}${items.length}: ${JSON.stringify(actual)}`];
    }
    return items.flatMap((item, i) => differences(actual[i], item, `${path}[${i}]`));
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${at}: ${JSON.stringify(actual)}, not an object`];
    return Object.entries(shown).flatMap(([key, value]) =>
      key === ANY ? [] : differences((actual as Record<string, unknown>)[key], value, `${path}.${key}`),
    );
  }
  return Object.is(actual, shown) ? [] : [`${at}: ${JSON.stringify(actual)}, not ${JSON.stringify(shown)}`];
}

/** Whether a line of the output matches the line shown. */
export function printedLine(output: string, shown: string): boolean {
  const pattern = textPattern(shown.trim());
  return output.split('\n').some((line) => pattern.test(line.trim()));
}
