// Structured JSON logs, one line per entry, with the request's correlation id.
// Written here rather than taken from Powertools because it is small, costs no
// cold-start time, and redacts by key name on every entry, which is the
// guarantee we need: tokens, passwords and secrets never reach the logs.

import { logSettings, type LogLevel } from './config.ts';

type Level = LogLevel;
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

const SENSITIVE_KEY =
  /pass(word)?|secret|token|authorization|api[-_]?key|cookie|signature|jwt|private[-_]?key|access[-_]?key|role[-_]?key|webhook[-_]?url|credential|shared[-_]?link/i;
const REDACTED = '[redacted]';

export type LogFields = Record<string, unknown>;

let coldStart = true;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger whose every entry also carries these fields. */
  with(fields: LogFields): Logger;
}

/**
 * `fn` is the function's name as it was when the logger was made (each bundle
 * makes its logger as it loads), not as it is when an entry is written: locally,
 * serverless-offline runs every function in one process and sets the
 * environment per invocation, so a step's late entry read another step's name.
 */
export function createLogger(base: LogFields = {}, level: Level = levelFromEnv(), fn = process.env.AWS_LAMBDA_FUNCTION_NAME): Logger {
  const write = (entryLevel: Exclude<Level, 'silent'>, message: string, fields?: LogFields) => {
    if (order[entryLevel] < order[level]) return;
    const entry = {
      level: entryLevel,
      message,
      timestamp: new Date().toISOString(),
      function: fn,
      ...redact(base),
      ...redact(fields ?? {}),
    };
    const line = JSON.stringify(entry, errorReplacer);
    if (entryLevel === 'error' || entryLevel === 'warn') process.stderr.write(`${line}\n`);
    else process.stdout.write(`${line}\n`);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    with: (fields) => createLogger({ ...base, ...fields }, level, fn),
  };
}

/** Marks the first invocation of this Lambda instance, for cold-start analysis. */
export function takeColdStart(): boolean {
  const was = coldStart;
  coldStart = false;
  return was;
}

export function redact(value: LogFields, depth = 0): LogFields {
  const out: LogFields = {};
  for (const [key, v] of Object.entries(value)) out[key] = SENSITIVE_KEY.test(key) ? REDACTED : redactWithin(v, depth);
  return out;
}

/** Objects and lists are redacted inside, to a depth of 4; anything else is kept as it is. */
function redactWithin(v: unknown, depth: number): unknown {
  if (!v || typeof v !== 'object' || v instanceof Error || depth >= 4) return v;
  return Array.isArray(v) ? v.map((item) => redactWithin(item, depth + 1)) : redact(v as LogFields, depth + 1);
}

function errorReplacer(_key: string, value: unknown) {
  if (value instanceof Error) {
    // Stacks help operators; the message of a DomainError is client-safe, and
    // vendor adapters never put vendor free text or credentials in messages.
    return { name: value.name, message: value.message, stack: value.stack };
  }
  return value;
}

const levelFromEnv = (): Level => logSettings().level;

export const logger = createLogger({ service: logSettings().service });
