// The project's commands as a person runs them: --help prints the usage and
// exits 0; an unknown option or a bad value prints the usage and one line
// naming it, exits 2, and shows no stack trace; a command that needs the
// local stack says, when nothing answers, to run `npm start` first.
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { answers, parseCommandLine } from '../../scripts/command-line.ts';

type Outcome = { code: number; stdout: string; stderr: string };
const run = (script: string, args: string[], env: Record<string, string> = {}) =>
  new Promise<Outcome>((resolve) => {
    execFile(process.execPath, [script, ...args], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

/** A loopback port nothing listens on (taken, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const COMMANDS = [
  { script: 'local/start.ts', usage: 'Usage: npm start' },
  { script: 'bench/run.ts', usage: 'Usage: npm run bench --' },
  { script: 'scripts/executions.ts', usage: 'Usage: npm run executions --' },
  { script: 'scripts/migrations/migrate-members.ts', usage: 'Usage: npm run migrate:members --' },
  { script: 'scripts/migrations/migrate-memberships.ts', usage: 'Usage: npm run migrate:memberships --' },
];

describe('the commands: help and bad options', () => {
  it.each(COMMANDS)('$script: --help and -h print the usage and exit 0', async ({ script, usage }) => {
    for (const flag of ['--help', '-h']) {
      const out = await run(script, [flag]);
      expect(out, flag).toMatchObject({ code: 0, stderr: '' });
      expect(out.stdout.startsWith(usage), out.stdout).toBe(true);
    }
  });

  it.each(COMMANDS)('$script: an unknown option prints the usage and one line naming it, exit 2, no stack', async ({ script, usage }) => {
    const out = await run(script, ['--bogus']);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr.startsWith(usage)).toBe(true);
    expect(out.stderr.trimEnd().split('\n').at(-1)).toBe("Unknown option '--bogus'");
    expect(out.stderr).not.toMatch(/\n\s+at |ERR_PARSE_ARGS|node:internal/);
  });

  it.each([
    ['bench/run.ts', ['--only', 'cold,colde'], '--only: no part colde (parts: cold, warm, onboarding, webhooks, gap, burst)'],
    ['bench/run.ts', ['--rounds', 'many'], "--rounds: 'many' is no whole number above 0"],
    ['bench/run.ts', ['--rounds'], "Option '--rounds <value>' argument missing"],
    ['scripts/migrations/migrate-members.ts', ['--page-size', '0'], "--page-size: '0' is no whole number above 0"],
    ['local/start.ts', ['extra'], "Unexpected argument 'extra'"],
  ])('%s %j: the usage and one line', async (script, args, line) => {
    const out = await run(script, args);
    expect(out.code).toBe(2);
    expect(out.stderr.trimEnd().split('\n').at(-1)).toBe(line);
  });

  it('reads options and defaults, and answers help and errors without throwing', () => {
    const spec = { usage: 'Usage: x', options: { quick: { type: 'boolean', default: false }, only: { type: 'string', default: 'a,b' } } } as const;
    expect(parseCommandLine(spec, ['--quick'])).toEqual({ kind: 'run', values: { quick: true, only: 'a,b', help: false } });
    expect(parseCommandLine(spec, ['--only', 'a', '-h'])).toEqual({ kind: 'help', text: 'Usage: x' });
    expect(parseCommandLine(spec, ['--only'])).toEqual({ kind: 'error', message: "Option '--only <value>' argument missing", usage: 'Usage: x' });
    expect(parseCommandLine(spec, ['--quick=yes'])).toMatchObject({ kind: 'error', message: "Option '--quick' does not take an argument" });
  });
});

describe('the commands that need the local stack', () => {
  it('say, when nothing answers, which part is down and to run npm start first; exit 1 before any call', async () => {
    const down = `http://127.0.0.1:${await closedPort()}`;
    expect(await answers(down)).toBe(false);
    const cases: { script: string; args: string[]; env: Record<string, string>; part: string; command: string }[] = [
      { script: 'scripts/executions.ts', args: ['list'], env: { AWS_ENDPOINT_URL_SFN: down }, part: 'Step Functions', command: 'npm run executions' },
      { script: 'scripts/migrations/migrate-members.ts', args: [], env: { AWS_ENDPOINT_URL_DYNAMODB: down }, part: 'DynamoDB', command: 'npm run migrate:members' },
      { script: 'scripts/migrations/migrate-memberships.ts', args: [], env: { AWS_ENDPOINT_URL_DYNAMODB: down }, part: 'DynamoDB', command: 'npm run migrate:memberships' },
    ];
    for (const { script, args, env, part, command } of cases) {
      const out = await run(script, args, env);
      expect(out, script).toMatchObject({ code: 1, stdout: '' });
      expect(out.stderr).toBe(`The local stack is not running: nothing answers at ${down} (${part}).\nStart it with \`npm start\` in another terminal, then run ${command} again.\n`);
    }
  });
});
