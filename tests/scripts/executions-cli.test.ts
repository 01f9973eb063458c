// The command line of `npm run executions`: help for the command and every
// subcommand, clear errors for bad input, and a follow-up view an operator can act on.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { describeFollowUp, helpOf, parseCommandLine, type OpenFollowUp } from '../../scripts/executions-cli.ts';

const SUBCOMMANDS = ['list', 'show', 'redrive', 'follow-ups'];

describe('npm run executions: arguments', () => {
  it('answers --help, -h and help with the usage of the command', () => {
    for (const argv of [['--help'], ['-h'], ['help']]) {
      const line = parseCommandLine(argv);
      expect(line.kind, argv.join(' ')).toBe('help');
      expect(line.kind === 'help' && line.text).toMatch(/^Usage: npm run executions -- <command>/);
      for (const sub of SUBCOMMANDS) expect(line.kind === 'help' && line.text).toContain(`  ${sub} `);
    }
  });

  it.each(SUBCOMMANDS)('has help for %s, however asked', (sub) => {
    for (const argv of [[sub, '--help'], ['--help', sub], [sub, '-h'], ['help', sub], [sub, 'some-run', '--help']]) {
      const line = parseCommandLine(argv);
      expect(line, argv.join(' ')).toEqual({ kind: 'help', text: helpOf(sub) });
    }
    expect(helpOf(sub)).toMatch(new RegExp(`^Usage: npm run executions -- ${sub}`));
    expect(helpOf(sub)).toContain('--stage');
  });

  it('reads each command with its options and defaults', () => {
    expect(parseCommandLine(['list', '--status', 'FAILED', '--machine', 'booking'])).toEqual({
      kind: 'run',
      command: 'list',
      options: { stage: 'local', region: 'eu-west-1', machine: 'booking', status: 'FAILED' },
    });
    expect(parseCommandLine(['redrive', 'acc-1-abc', '--stage', 'prod', '--region', 'us-east-1'])).toMatchObject({
      kind: 'run',
      command: 'redrive',
      id: 'acc-1-abc',
      options: { stage: 'prod', region: 'us-east-1', machine: 'onboarding' },
    });
    expect(parseCommandLine(['follow-ups'])).toMatchObject({ kind: 'run', command: 'follow-ups' });
  });

  it.each([
    [['--foo'], /^Unknown option '--foo'$/, 'general'],
    [['list', '--foo'], /^Unknown option '--foo'$/, 'list'],
    [['lst'], /^Unknown command 'lst'/, 'general'],
    [['show'], /^show needs an execution name or ARN$/, 'show'],
    [['redrive'], /^redrive needs an execution name or ARN$/, 'redrive'],
    [['list', 'extra'], /^Unexpected argument 'extra'$/, 'list'],
    [['show', 'a', 'b'], /^Unexpected argument 'b'$/, 'show'],
    [['list', '--machine', 'nope'], /^Unknown machine 'nope'/, 'list'],
    [['list', '--status', 'failed'], /^Unknown status 'failed'/, 'list'],
    [['list', '--stage'], /^Option '--stage <value>' argument missing$/, 'list'],
    [['list', '--stage', 'Prod;rm'], /^Invalid stage/, 'list'],
    [[], /^No command given\. Commands: list, show, redrive, follow-ups$/, 'general'],
  ])('refuses %j with a one-line message and the usage it concerns, not a stack trace', (argv, message, usageOf) => {
    const line = parseCommandLine(argv);
    expect(line.kind).toBe('error');
    if (line.kind !== 'error') return;
    expect(line.message).toMatch(message);
    expect(line.message).not.toContain('\n');
    expect(line.usage).toBe(helpOf(usageOf === 'general' ? undefined : usageOf));
  });

  it('as a process: --help exits 0 with the usage, a bad option exits 2 with the usage and one line', async () => {
    const run = promisify(execFile);
    const node = process.execPath;
    const help = await run(node, ['scripts/executions.ts', '--help']);
    expect(help.stdout).toMatch(/^Usage: npm run executions -- <command>/);
    const sub = await run(node, ['scripts/executions.ts', 'follow-ups', '--help']);
    expect(sub.stdout).toMatch(/^Usage: npm run executions -- follow-ups/);
    const bad = await run(node, ['scripts/executions.ts', '--bogus']).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`${helpOf()}\n\nUnknown option '--bogus'\n`);
  });
});

describe('npm run executions -- follow-ups: what an operator acts on', () => {
  const followUp: OpenFollowUp = {
    account_id: 'acc-7',
    integration: 'clickup',
    message: 'ClickUp refused the token (401)',
    context: { status: 401, listId: undefined },
    run_id: 'acc-7-3f9a',
    failures: 2,
    first_failed_at: '2026-11-26T10:00:00.000Z',
    last_failed_at: '2026-11-26T11:30:00.000Z',
  };
  const arn = 'arn:aws:states:eu-west-1:123456789012:execution:agency-backend-prod-onboarding:acc-7-3f9a';

  it('names what failed, for which account, what to do, and the redrive commands', () => {
    const text = describeFollowUp(followUp, { machine: 'onboarding', executionArn: arn, status: 'FAILED', redrivable: true }, { stage: 'prod', region: 'eu-west-1' }).join('\n');
    expect(text).toContain('clickup · account acc-7 · failed 2 times since 2026-11-26 10:00:00, last 2026-11-26 11:30:00');
    expect(text).toContain('what failed: ClickUp refused the token (401)');
    expect(text).toContain('details:     status=401');
    expect(text).not.toContain('listId');
    expect(text).toMatch(/what to do: {2}Check ClickUp: CLICKUP_API_TOKEN/);
    expect(text).toContain('npm run executions -- redrive acc-7-3f9a --stage prod --region eu-west-1');
    expect(text).toContain(`aws stepfunctions redrive-execution --execution-arn ${arn} --region eu-west-1`);
  });

  it('names the machine of an enhanced run, and the local endpoint on the local stack', () => {
    const local = arn.replace('prod-onboarding', 'local-enhanced-onboarding');
    const text = describeFollowUp({ ...followUp, integration: 'scrape' }, { machine: 'enhanced-onboarding', executionArn: local, status: 'FAILED', redrivable: true }, { stage: 'local', region: 'eu-west-1' }).join('\n');
    expect(text).toContain('npm run executions -- redrive acc-7-3f9a --machine enhanced-onboarding\n');
    // With the region: without a profile (no ~/.aws on a fresh machine) the AWS CLI refuses a command that names none.
    expect(text).toContain(`--execution-arn ${local} --endpoint-url http://localhost:8083 --region eu-west-1`);
    expect(text).toContain("what to do:  The client's website could not be crawled");
  });

  it('offers no redrive where there is none: a running run, a finished one, a billing conflict', () => {
    const opts = { stage: 'prod', region: 'eu-west-1' };
    expect(describeFollowUp(followUp, { machine: 'onboarding', executionArn: arn, status: 'RUNNING', redrivable: false }, opts).join('\n')).toContain('is RUNNING; look again when it ends');
    expect(describeFollowUp(followUp, { machine: 'onboarding', executionArn: arn, status: 'SUCCEEDED', redrivable: false }, opts).join('\n')).toContain('cannot be redriven');
    const billing = describeFollowUp({ ...followUp, integration: 'billing', run_id: 'stripe#evt_1', failures: 1 }, undefined, opts).join('\n');
    expect(billing).toContain('refund, cancel or link it in Stripe');
    expect(billing).toContain('found by:    stripe#evt_1');
    expect(billing).not.toContain('redrive-execution');
  });
});
