// What the local stack prints of serverless-offline's output. A step Lambda
// that throws makes offline print a block: "× Unhandled exception in handler
// 'x'.", the error inspected with its stack and fields, then "× Unhandled
// Lambda Error during invoke of '<function>': Name: message". For failures the
// design expects (a run held for redrive, a throttled or unavailable vendor the
// state machine retries), that block is noise: each becomes one line. Every
// other error still prints in full.

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

export interface ConsoleFilter {
  /** One line of offline's output in; the lines to print out (none while it waits for the next line). */
  push(line: string): string[];
  /** Whatever it holds, when no more lines come for a while. */
  flush(): string[];
}

export function consoleFilter(designed: Record<string, string> = DESIGNED_FAILURES): ConsoleFilter {
  let held: string | undefined; // "Unhandled exception in handler", until the next line names the error
  let skipping = false; // inside the block of a designed failure: its indented lines are dropped

  const push = (line: string): string[] => {
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
      return [before, ...push(line)];
    }
    if (HANDLER_FAILED.test(line)) {
      held = line;
      return [];
    }
    const invoke = INVOKE_FAILED.exec(line);
    if (invoke && invoke[2]! in designed) {
      const [, fn, name, message] = invoke;
      return [`· ${fn}: ${name} (${designed[name!]}): ${message}`];
    }
    return [line];
  };

  return {
    push,
    flush() {
      skipping = false;
      const out = held === undefined ? [] : [held];
      held = undefined;
      return out;
    },
  };
}
