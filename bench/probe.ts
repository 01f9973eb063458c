// Runs a probe (bench/probes/*.mjs) in a fresh Node process and reads what it
// reports on fd 3. The child's stdout (the handler's logs) is discarded, its
// stderr kept for the error message when it fails.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const PROBES = join(import.meta.dirname, 'probes');

export function runProbe<T>(probe: string, args: string[], options: { env: Record<string, string>; stdin?: string; timeoutMs?: number }): Promise<T & { wallMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [join(PROBES, probe), ...args], {
      env: options.env,
      stdio: ['pipe', 'ignore', 'pipe', 'pipe'],
    });
    const report: Buffer[] = [];
    const errors: Buffer[] = [];
    let reportedAt = 0;
    child.stdio[3]!.on('data', (chunk: Buffer) => {
      reportedAt ||= performance.now();
      report.push(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => errors.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const text = Buffer.concat(report).toString('utf8');
      if (code !== 0 || !text) {
        reject(new Error(`${probe} ${args[0] ?? ''} exited ${code}: ${Buffer.concat(errors).toString('utf8').trim().split('\n').slice(-3).join(' | ')}`));
        return;
      }
      resolve({ ...(JSON.parse(text) as T), wallMs: reportedAt - started });
    });
    child.stdin!.end(options.stdin ?? '');
  });
}
