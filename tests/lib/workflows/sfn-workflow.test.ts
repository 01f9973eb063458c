// A workflow's start-or-resume on Step Functions, against the local Step Functions endpoint.
import { DescribeExecutionCommand, RedriveExecutionCommand } from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it } from 'vitest';
import { sfnWorkflow } from '../../../lib/workflows/sfn-workflow.ts';
import { localMachine, serveLocalStepFunctions, stopLocalStepFunctions } from '../../support/local-sfn.ts';

const machine = localMachine('svc-local-onboarding', { StartAt: 'Work', States: { Work: { Type: 'Task', Resource: 'fn-work', End: true } } });

afterEach(stopLocalStepFunctions);

describe('starting or resuming an onboarding run', () => {
  // StartExecution with the name and input of a running execution succeeds and answers as for the
  // original start (API reference, StartExecution): for a run being redriven it does not say so.
  it("waits for the redrive's attempt when the same submission comes again while an operator's redrive runs", async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { engine, client: sfn } = await serveLocalStepFunctions([machine], async () => {
      calls += 1;
      if (calls === 1) return { ok: false, errorType: 'VendorRejected', errorMessage: 'no' };
      await gate;
      return { ok: true, payload: {} };
    });
    const workflow = sfnWorkflow(sfn, machine.arn);
    const input = { accountId: 'a-1', email: 'ann@acme.example', runId: 'run-1' };

    try {
      const first = await workflow.startOrResume('run-1', input, { seenBefore: false });
      expect(first.attempt).toBe(0);
      await engine.idle();
      expect((await sfn.send(new DescribeExecutionCommand({ executionArn: first.executionArn }))).status).toBe('FAILED');
      // An operator redrives it; while it runs, the same form is sent again.
      await sfn.send(new RedriveExecutionCommand({ executionArn: first.executionArn }));
      const again = await workflow.startOrResume('run-1', input, { seenBefore: true });
      expect(again).toEqual({ executionArn: first.executionArn, attempt: 1 });
    } finally {
      release();
      await engine.idle();
    }
  });
});
