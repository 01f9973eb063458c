// What `npm start` leaves when npm is stopped with SIGTERM: npm passes the
// signal to the `sh -c` it runs the script in, the shell ends, and its child
// would go on. Here the child is a small process using the same check as
// local/start.ts; it must notice and stop.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const work = mkdtempSync(join(tmpdir(), 'orphan-'));
afterEach(() => rmSync(work, { recursive: true, force: true }));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(what: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!what() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return what();
}

describe('stopWhenOrphaned', () => {
  it('stops a process whose shell was ended by SIGTERM, as npm start leaves it', { timeout: 30_000 }, async () => {
    const module = new URL('../../local/orphan.ts', import.meta.url).href;
    const child = `
      import { writeFileSync } from 'node:fs';
      const { stopWhenOrphaned } = await import(${JSON.stringify(module)});
      writeFileSync('${work}/pid', String(process.pid));
      stopWhenOrphaned(() => { writeFileSync('${work}/stopped', 'yes'); process.exit(0); }, 100);
      setInterval(() => {}, 1000);
    `;
    // `; true` keeps sh from replacing itself with node, as sh does for `npm start`'s script.
    const shell = spawn('sh', ['-c', `"${process.execPath}" --input-type=module -e "$CHILD"; true`], { env: { ...process.env, CHILD: child }, stdio: 'ignore' });
    expect(await until(() => existsSync(join(work, 'pid')))).toBe(true);
    const pid = Number(readFileSync(join(work, 'pid'), 'utf8'));
    try {
      shell.kill('SIGTERM');
      expect(await until(() => existsSync(join(work, 'stopped')))).toBe(true);
      expect(await until(() => !alive(pid))).toBe(true);
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('stops the serverless-offline group the stack starts when the process that started it is killed, at once or later (local/orphan-guard.ts)', { timeout: 30_000 }, async () => {
    // As local/stack.ts starts offline: in a process group of its own, the guard preloaded, told its parent's pid.
    // The parent is then killed outright (a test run stopped, a crash), so nothing stops the group the usual way.
    const guard = new URL('../../local/orphan-guard.ts', import.meta.url).href;
    const dir = mkdtempSync(join(tmpdir(), 'orphan-guard-'));
    for (const waitMs of [0, 1500]) {
      const parent = `
        import { spawn } from 'node:child_process';
        import { writeFileSync } from 'node:fs';
        const child = spawn(process.execPath, ['--import', ${JSON.stringify(guard)}, '-e', 'setInterval(() => {}, 1000)'], {
          detached: true, stdio: 'ignore', env: { ...process.env, LOCAL_STACK_PARENT_PID: String(process.pid) },
        });
        writeFileSync('${dir}/pid-${waitMs}', String(child.pid));
        setInterval(() => {}, 1000);
      `;
      const starter = spawn(process.execPath, ['--input-type=module', '-e', parent], { stdio: 'ignore' });
      expect(await until(() => existsSync(join(dir, `pid-${waitMs}`)))).toBe(true);
      const pid = Number(readFileSync(join(dir, `pid-${waitMs}`), 'utf8'));
      try {
        await new Promise((r) => setTimeout(r, waitMs));
        // Running, with the guard loaded (a guard that failed to load would end it: no proof).
        if (waitMs) expect(alive(pid)).toBe(true);
        starter.kill('SIGKILL');
        expect(await until(() => !alive(pid)), `killed after ${waitMs} ms`).toBe(true);
      } finally {
        if (alive(pid)) process.kill(pid, 'SIGKILL');
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });
});
