// What the local stack prints of serverless-offline's output. A step Lambda
// that throws makes offline print a block: "× Unhandled exception in handler
// 'x'.", the error inspected with its stack and fields, then "× Unhandled
// Lambda Error during invoke of '<function>': Name: message". Before it, the
// step may have logged the failure as a structured entry (a JSON line with the
// error and its stack). For failures the design expects (a run held for
// redrive, a throttled or unavailable vendor the state machine retries), both
// are noise: together they become one line, with the run the entry names.
// Every other error, and an entry no such block follows, still prints in full.

/** Errors a step throws on purpose, so the state machine retries, waits or holds the run; with what that means. */
export const DESIGNED_FAILURES: Record<string, string> = {
  AwaitingRedrive: 'held for an operator: fix the cause, then redrive',
  VendorThrottled: 'vendor throttled; the state machine retries later',
  VendorUnavailable: 'vendor unavailable; retried, then a follow-up',
  SiteUnavailable: "client's site unavailable; retried, then a follow-up",
  BookingTaskBusy: 'another event of the booking is writing it; retried',
  OnboardingListMissing: "the account's onboarding has not made its list yet; retried",
};

const HANDLER_FAILED = /^× Unhandled exception in handler '([^']+)'\.$/;
/** The inspected error: "× Name: message" or "× { Name: message" (an error with fields). */
const ERROR_HEAD = /^× (?:\{ )?([A-Za-z_$][\w$]*): /;
const INVOKE_FAILED = /^× Unhandled Lambda Error during invoke of '([^']+)': ([A-Za-z_$][\w$]*): (.*)$/;
/** How long a logged designed failure waits for offline's block about the same error before it prints in full. */
const ENTRY_WAIT_MS = 5000;

export interface ConsoleFilter {
  /** One line of offline's output in; the lines to print out (none while it waits for the next line). */
  push(line: string): string[];
  /** When no more lines come for a while: what it holds, but for logged failures still within their wait. */
  flush(): string[];
  /** Whether logged failures still wait (flush again a little later). */
  waiting(): boolean;
  /** Everything it holds, when the output ends. */
  end(): string[];
}

/** A structured log entry (lib/log.ts) about an error of a designed kind: the error's "Name: message", and the run it names. */
function designedEntry(line: string, designed: Record<string, string>): { error: string; runId?: string } | undefined {
  if (!line.startsWith('{"level":')) return undefined;
  let entry: { error?: { name?: unknown; message?: unknown }; runId?: unknown };
  try {
    entry = JSON.parse(line);
  } catch {
    return undefined;
  }
  const { name, message } = entry.error ?? {};
  if (typeof name !== 'string' || typeof message !== 'string' || !(name in designed)) return undefined;
  return { error: `${name}: ${message}`, ...(typeof entry.runId === 'string' ? { runId: entry.runId } : {}) };
}

export function consoleFilter(designed: Record<string, string> = DESIGNED_FAILURES, now: () => number = Date.now): ConsoleFilter {
  let held: string | undefined; // "Unhandled exception in handler", until the next line names the error
  let skipping = false; // inside the block of a designed failure: its indented lines are dropped
  // Logged designed failures, each until offline's block about the same error says it in one line.
  let entries: { line: string; error: string; runId?: string; at: number }[] = [];

  /** The entries that waited too long: no block followed (the error was handled, not thrown), so they print as they are. */
  const overdue = (): string[] => {
    const late = entries.filter((e) => now() - e.at > ENTRY_WAIT_MS);
    entries = entries.filter((e) => !late.includes(e));
    return late.map((e) => e.line);
  };

  const push = (line: string): string[] => [...overdue(), ...filter(line)];

  const filter = (line: string): string[] => {
    if (skipping && /^\s/.test(line)) return [];
    skipping = false;
    if (held !== undefined) {
      const before = held;
      held = undefined;
      const name = ERROR_HEAD.exec(line)?.[1];
      if (name && name in designed) {
        skipping = true;
        return [];
      }
      return [before, ...filter(line)];
    }
    if (HANDLER_FAILED.test(line)) {
      held = line;
      return [];
    }
    const invoke = INVOKE_FAILED.exec(line);
    if (invoke && invoke[2]! in designed) {
      const [, fn, name, message] = invoke;
      const logged = entries.find((e) => e.error === `${name}: ${message}`);
      entries = entries.filter((e) => e !== logged);
      return [`· ${fn}: ${name} (${designed[name!]}): ${message}${logged?.runId ? ` (run ${logged.runId})` : ''}`];
    }
    const entry = designedEntry(line, designed);
    if (entry) {
      entries.push({ line, ...entry, at: now() });
      return [];
    }
    return [line];
  };

  const heldLine = (): string[] => {
    skipping = false;
    const out = held === undefined ? [] : [held];
    held = undefined;
    return out;
  };

  return {
    push,
    flush: () => [...heldLine(), ...overdue()],
    waiting: () => entries.length > 0,
    end() {
      const out = [...heldLine(), ...entries.map((e) => e.line)];
      entries = [];
      return out;
    },
  };
}
