// A vendor that says "later" for longer than any step may run: the run waits
// in a Wait state for as long as the vendor said, and ends succeeded once the
// vendor allows. Time is made short: the local engine's Wait states last two
// seconds while this runs, and the wait the step asked for is read from the
// execution's history.
import { GetExecutionHistoryCommand, SFNClient } from '@aws-sdk/client-sfn';
import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { stateMachines } from '../../statemachines/cloudformation.ts';
import { api, stack } from '../support/http.ts';
import { clearFaults, executionArn, followRun, SERVICE_KEY, setFault, uniqueToken, vendorRequests } from '../support/onboarding.ts';
import { stackDb, table } from '../support/stack-db.ts';

async function shortenWaits(seconds: number | null) {
  const res = await fetch(`${stack().urls.stepFunctions}/_local/waits`, { method: 'POST', body: JSON.stringify({ seconds }) });
  expect(res.status).toBe(200);
}

/** The pacing schedules start afresh: the vendor's ten-minute hold must not reach this stack's other tests. */
async function forgetSchedules() {
  const { Items = [] } = await stackDb().send(new ScanCommand({ TableName: table('pacing') }));
  for (const item of Items) await stackDb().send(new DeleteCommand({ TableName: table('pacing'), Key: { key: item.key } }));
}

afterEach(async () => {
  await shortenWaits(null);
  await clearFaults();
  await forgetSchedules();
});

describe('a vendor whose reset is ten minutes away', () => {
  it('holds the integration in a Wait state for as long, longer than its step may run, and the run ends succeeded once the vendor allows', async () => {
    const t = uniqueToken();
    const stepTimeout = (stateMachines.onboarding.States.Provision as { Branches: { States: Record<string, { TimeoutSeconds?: number }> }[] }).Branches[0]!
      .States.ProvisionTaskTool!.TimeoutSeconds!;
    const since = Date.now();
    await setFault({ vendor: 'clickup', mode: 'throttle', count: 1, match: `Later ${t}`, retryAfterSeconds: 600 });
    await shortenWaits(2);

    const reply = await followRun(await api('/api/onboarding-v2', { body: { email: `later-${t}@example.com`, companyName: `Later ${t}` }, headers: SERVICE_KEY }));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ success: true, integrations: { clickup: 'success' } });

    // The step answered "waiting" (it did not fail, and it did not sleep): until the vendor's reset, well past its own timeout.
    const sfn = new SFNClient({ endpoint: stack().urls.stepFunctions, region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
    const { events = [] } = await sfn.send(new GetExecutionHistoryCommand({ executionArn: executionArn(reply.body.executionId), maxResults: 1000 }));
    const answers = events
      .filter((e) => e.type === 'LambdaFunctionSucceeded')
      .map((e) => ({ at: e.timestamp!.getTime(), answer: JSON.parse(e.lambdaFunctionSucceededEventDetails!.output!) }))
      .filter((a) => a.answer.integration === 'clickup');
    const waiting = answers.find((a) => a.answer.outcome === 'waiting')!;
    expect(waiting.answer).toMatchObject({ vendor: 'clickup' });
    const waitedSeconds = (Date.parse(waiting.answer.until) - waiting.at) / 1000;
    expect(waitedSeconds).toBeGreaterThan(590);
    expect(waitedSeconds).toBeGreaterThan(stepTimeout);
    expect(answers.at(-1)!.answer).toEqual({ integration: 'clickup', outcome: 'success' });
    expect(events.filter((e) => e.type === 'WaitStateEntered' && e.stateEnteredEventDetails?.name === 'ProvisionTaskToolWait')).toHaveLength(1);
    expect(events.some((e) => e.type === 'LambdaFunctionFailed' || e.type === 'TaskFailed')).toBe(false);
    // The one refusal, then the project made once.
    const clickup = (await vendorRequests('clickup', since)).filter((r) => r.text.includes(t));
    expect(clickup.filter((r) => r.status === 429)).toHaveLength(1);
  });
});
