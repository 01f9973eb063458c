// `npm start` runs local/start.ts under `sh -c`, and the shell does not pass
// on a SIGTERM that npm forwards to it (a process manager stopping npm, or
// `kill <npm's pid>`): the shell ends, the stack would go on without a parent,
// holding its ports. A process whose parent has ended is adopted by another
// (its parent pid changes), so the stack checks that once a second.

/**
 * Calls `stop` once this process's parent has ended; the check keeps no
 * process alive. `parent` is the pid the parent had, when the caller knows it:
 * a parent that ended before this process got this far is then seen too.
 */
export function stopWhenOrphaned(stop: () => void, everyMs = 1000, parent = process.ppid): void {
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop();
  }, everyMs);
  timer.unref();
}
