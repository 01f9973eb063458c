// The local stack's console: failures the design expects print one line each,
// real errors in full. The blocks below are serverless-offline's output as the
// local stack printed it for an onboarding whose ClickUp failed (paths shortened).
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

function through(text: string): string[] {
  const filter = consoleFilter();
  return [...text.split('\n').flatMap((line) => filter.push(line)), ...filter.flush()];
}

describe('the local console', () => {
  it('prints a vendor failure the state machine retries as one line, and what follows it', () => {
    expect(through(vendorUnavailable)).toEqual([
      '· agency-backend-local-provision-task-tool: VendorUnavailable (vendor unavailable; retried, then a follow-up): clickup: find folder "Obs (obs-0nzqm1)" answered 500 (gave up after 2 attempts)',
      '(λ: post-chat-notices) RequestId: e5a70ee7  Duration: 405.53 ms  Billed Duration: 406 ms',
    ]);
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
