// The local stack's console: failures the design expects print one line each,
// real errors in full. The blocks below are serverless-offline's output as the
// local stack printed it for an onboarding whose ClickUp failed (paths shortened),
// and the entry the integration step logs before it rethrows (lib/log.ts's shape).
import { describe, expect, it } from 'vitest';
import { consoleFilter, DESIGNED_FAILURES } from '../../local/console-filter.ts';
import { bookingRetry, retryPolicies } from '../../statemachines/asl.ts';

const vendorUnavailable = `× Unhandled exception in handler 'provision-task-tool'.
× { VendorUnavailable: clickup: find folder "Obs (obs-0nzqm1)" answered 500 (gave up after 2 attempts)
      at withRetries (file:///x/.build/functions/onboarding/steps/provision-task-tool.mjs:2:5000)
      at async HandlerRunner.run (file:///x/node_modules/serverless-offline/src/lambda/handler-runner/HandlerRunner.js:124:14)
    details: undefined,
    code: 'vendor_failed',
    context:
     { transient: true,
       status: 500 } }
× Unhandled Lambda Error during invoke of 'agency-backend-local-provision-task-tool': VendorUnavailable: clickup: find folder "Obs (obs-0nzqm1)" answered 500 (gave up after 2 attempts)
(λ: post-chat-notices) RequestId: e5a70ee7  Duration: 405.53 ms  Billed Duration: 406 ms`;

const awaitingRedrive = `× Unhandled exception in handler 'provision-task-tool'.
× AwaitingRedrive: clickup failed in this run and is held for an operator: fix the cause, then redrive this execution
      at file:///x/.build/functions/onboarding/steps/provision-task-tool.mjs:28:760
      at InProcessRunner.run (file:///x/node_modules/serverless-offline/src/lambda/handler-runner/in-process-runner/InProcessRunner.js:87:20)
× Unhandled Lambda Error during invoke of 'agency-backend-local-provision-task-tool': AwaitingRedrive: clickup failed in this run and is held for an operator: fix the cause, then redrive this execution`;

const realError = `× Unhandled exception in handler 'record-outcome'.
× TypeError: Cannot read properties of undefined (reading 'integration')
      at recordOutcome (file:///x/.build/functions/onboarding/steps/record-outcome.mjs:3:100)
× Unhandled Lambda Error during invoke of 'agency-backend-local-record-outcome': TypeError: Cannot read properties of undefined (reading 'integration')`;

/** The structured entry a step logs for a failure, as lib/log.ts writes it: one JSON line, the error with its stack. */
const loggedFailure = (name: string, message: string, runId = 'acc-7-3f9a') =>
  JSON.stringify({
    level: 'warn',
    message: 'integration step failed',
    timestamp: '2026-11-26T10:00:00.000Z',
    function: 'agency-backend-local-provision-task-tool',
    service: 'agency-backend',
    integration: 'clickup',
    runId,
    accountId: 'acc-7',
    failure: { message, context: { vendor: 'clickup', transient: true, status: 500 } },
    error: { name, message, stack: `${name}: ${message}\n    at withRetries (file:///x/.build/functions/onboarding/steps/provision-task-tool.mjs:2:5000)\n${'    at frame (file:///x/y.mjs:1:1)\n'.repeat(20)}` },
  });
const clickupMessage = 'clickup: find folder "Obs (obs-0nzqm1)" answered 500 (gave up after 2 attempts)';

function through(text: string): string[] {
  const filter = consoleFilter();
  return [...text.split('\n').flatMap((line) => filter.push(line)), ...filter.end()];
}

describe('the local console', () => {
  it('prints a vendor failure the state machine retries as one line, and what follows it', () => {
    expect(through(vendorUnavailable)).toEqual([
      '· agency-backend-local-provision-task-tool: VendorUnavailable (vendor unavailable; retried, then a follow-up): clickup: find folder "Obs (obs-0nzqm1)" answered 500 (gave up after 2 attempts)',
      '(λ: post-chat-notices) RequestId: e5a70ee7  Duration: 405.53 ms  Billed Duration: 406 ms',
    ]);
  });

  it("prints a designed failure the step logged and then threw as one line, naming the entry's run", () => {
    const logged = loggedFailure('VendorUnavailable', clickupMessage);
    expect(logged.length).toBeGreaterThan(1000);
    expect(through(`${logged}\n${vendorUnavailable}`)).toEqual([
      `· agency-backend-local-provision-task-tool: VendorUnavailable (vendor unavailable; retried, then a follow-up): ${clickupMessage} (run acc-7-3f9a)`,
      '(λ: post-chat-notices) RequestId: e5a70ee7  Duration: 405.53 ms  Billed Duration: 406 ms',
    ]);
  });

  it('pairs each logged failure with the block about the same error, whatever comes between', () => {
    const other = 'clickup: create list answered 503 (gave up after 2 attempts)';
    const otherBlock = vendorUnavailable.replaceAll(clickupMessage, other).split('\n').slice(0, -1).join('\n');
    const text = [loggedFailure('VendorUnavailable', clickupMessage, 'run-a'), loggedFailure('VendorUnavailable', other, 'run-b'), 'POST /api/status (λ: status)', otherBlock, vendorUnavailable].join('\n');
    const out = through(text);
    expect(out).toEqual([
      'POST /api/status (λ: status)',
      `· agency-backend-local-provision-task-tool: VendorUnavailable (vendor unavailable; retried, then a follow-up): ${other} (run run-b)`,
      `· agency-backend-local-provision-task-tool: VendorUnavailable (vendor unavailable; retried, then a follow-up): ${clickupMessage} (run run-a)`,
      '(λ: post-chat-notices) RequestId: e5a70ee7  Duration: 405.53 ms  Billed Duration: 406 ms',
    ]);
  });

  it('prints in full a logged designed failure no block follows (handled, not thrown), once its wait is over or the output ends', () => {
    let clock = 0;
    const filter = consoleFilter(DESIGNED_FAILURES, () => clock);
    const logged = loggedFailure('VendorThrottled', 'resend: send answered 429');
    expect(filter.push(logged)).toEqual([]);
    expect(filter.flush()).toEqual([]);
    expect(filter.waiting()).toBe(true);
    clock = 6000;
    expect(filter.flush()).toEqual([logged]);
    expect(filter.waiting()).toBe(false);

    expect(filter.push(logged)).toEqual([]);
    clock = 12_001;
    expect(filter.push('next line')).toEqual([logged, 'next line']);
    expect(filter.push(logged)).toEqual([]);
    expect(filter.end()).toEqual([logged]);
  });

  it('passes structured entries through untouched unless their error is a designed failure', () => {
    const real = loggedFailure('TypeError', "Cannot read properties of undefined (reading 'integration')");
    const plain = JSON.stringify({ level: 'info', message: 'request', status: 200 });
    expect(through(`${real}\n${plain}\n{"level": not json`)).toEqual([real, plain, '{"level": not json']);
  });

  it('prints a run held for redrive as one line', () => {
    const out = through(awaitingRedrive);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^· agency-backend-local-provision-task-tool: AwaitingRedrive \(held for an operator: fix the cause, then redrive\): clickup failed/);
  });

  it('prints a real error in full, stack included', () => {
    expect(through(realError)).toEqual(realError.split('\n'));
    expect(through(`${awaitingRedrive}\n${realError}`)).toHaveLength(1 + realError.split('\n').length);
  });

  it('gives back a held line when nothing follows it, and passes other lines untouched', () => {
    expect(through("× Unhandled exception in handler 'x'.")).toEqual(["× Unhandled exception in handler 'x'."]);
    expect(through('POST /api/onboarding-v2 (λ: onboarding-v2)\n  indented line')).toEqual(['POST /api/onboarding-v2 (λ: onboarding-v2)', '  indented line']);
  });

  it('knows every error the state machines retry by name, so none of them prints a stack', () => {
    const retriers = [...Object.values(retryPolicies).flat(), ...Object.values(bookingRetry)];
    const named = new Set(retriers.flatMap((r) => r.ErrorEquals).filter((e) => !/^(States|Lambda|Sandbox)\./.test(e)));
    expect([...named].filter((e) => !(e in DESIGNED_FAILURES))).toEqual([]);
    expect(DESIGNED_FAILURES).toHaveProperty('AwaitingRedrive');
  });
});
