// Operators' view of the state machines' executions, on AWS or on the local
// stack: list, show, redrive, follow-ups (`npm run executions -- --help`; the
// command line and the follow-up view are in executions-cli.ts).
// The local stage talks to the local stack (npm start); any other stage to AWS
// with the usual credentials.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  ListExecutionsCommand,
  ListStateMachinesCommand,
  RedriveExecutionCommand,
  SFNClient,
  type HistoryEvent,
} from '@aws-sdk/client-sfn';
import { QueryCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { exitWithUsage, LOCAL_STACK, requireLocalStack } from './command-line.ts';
import { describeFollowUp, parseCommandLine, type OpenFollowUp, type RunOf } from './executions-cli.ts';
import { workflows } from '../lib/provisioning/registry.ts';

const SERVICE = 'agency-backend';
const line = parseCommandLine(process.argv.slice(2));
if (line.kind === 'help') {
  console.log(line.text);
  process.exit(0);
}
if (line.kind === 'error') exitWithUsage(line.message, line.usage);
const { command, id, options: values } = line;
const stage = values.stage;
const local = stage === 'local';
const clientConfig = {
  region: values.region,
  ...(local ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
};
const sfnEndpoint = process.env.AWS_ENDPOINT_URL_SFN ?? LOCAL_STACK.stepFunctions;
const dynamodbEndpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB ?? LOCAL_STACK.dynamodb;
if (local) await requireLocalStack({ 'Step Functions': sfnEndpoint, ...(command === 'follow-ups' ? { DynamoDB: dynamodbEndpoint } : {}) }, 'npm run executions');
const sfn = new SFNClient({ ...clientConfig, ...(local ? { endpoint: sfnEndpoint } : {}) });
const machineName = `${SERVICE}-${stage}-${values.machine}`;

async function stateMachineArn(name = machineName): Promise<string> {
  const { stateMachines = [] } = await sfn.send(new ListStateMachinesCommand({}));
  const found = stateMachines.find((m) => m.name === name);
  if (!found?.stateMachineArn) throw new Error(`No state machine ${name} (is the stack running / deployed?)`);
  return found.stateMachineArn;
}

async function executionArn(nameOrArn: string | undefined): Promise<string> {
  if (!nameOrArn) throw new Error('Give an execution name or ARN');
  if (nameOrArn.startsWith('arn:')) return nameOrArn;
  return `${(await stateMachineArn()).replace(':stateMachine:', ':execution:')}:${nameOrArn}`;
}

const when = (d?: Date) => (d ? d.toISOString().replace('T', ' ').slice(0, 19) : '-');

async function list() {
  const arn = await stateMachineArn();
  const { executions = [] } = await sfn.send(
    new ListExecutionsCommand({ stateMachineArn: arn, statusFilter: values.status as never, maxResults: 50 }),
  );
  if (!executions.length) return console.log('No executions.');
  console.log(['STATUS'.padEnd(10), 'STARTED'.padEnd(20), 'STOPPED'.padEnd(20), 'REDRIVES', 'NAME'].join(' '));
  for (const e of executions) {
    console.log([String(e.status).padEnd(10), when(e.startDate).padEnd(20), when(e.stopDate).padEnd(20), String(e.redriveCount ?? 0).padEnd(8), e.name].join(' '));
  }
}

async function show(nameOrArn?: string) {
  const arn = await executionArn(nameOrArn);
  const d = await sfn.send(new DescribeExecutionCommand({ executionArn: arn }));
  console.log(`${d.name}\n  status:   ${d.status} (redriven ${d.redriveCount ?? 0}x; ${d.redriveStatus ?? ''})`);
  console.log(`  started:  ${when(d.startDate)}   stopped: ${when(d.stopDate)}`);
  if (d.error) console.log(`  error:    ${d.error}: ${causeOf(d.cause)}`);
  const events: HistoryEvent[] = [];
  let nextToken: string | undefined;
  do {
    const page = await sfn.send(new GetExecutionHistoryCommand({ executionArn: arn, nextToken, maxResults: 1000 }));
    events.push(...(page.events ?? []));
    nextToken = page.nextToken;
  } while (nextToken);
  const byId = new Map(events.map((e) => [e.id, e]));
  // A call past its state's TimeoutSeconds is a LambdaFunctionTimedOut, not a LambdaFunctionFailed.
  const failures = events.filter((e) => e.type === 'LambdaFunctionFailed' || e.type === 'LambdaFunctionTimedOut');
  if (failures.length) {
    console.log('  failed Lambda calls (each is retried or caught as the state machine says):');
    for (const f of failures) {
      // failed → started → scheduled, which names the function.
      const scheduled = byId.get(byId.get(f.previousEventId)?.previousEventId);
      const fn = scheduled?.lambdaFunctionScheduledEventDetails?.resource?.split(':').pop() ?? '?';
      const timedOut = f.lambdaFunctionTimedOutEventDetails;
      console.log(`    ${when(f.timestamp)}  ${fn}: ${timedOut ? `${timedOut.error}: ${timedOut.cause ?? ''}` : causeOf(f.lambdaFunctionFailedEventDetails?.cause)}`);
    }
  }
}

async function redrive(nameOrArn?: string) {
  const arn = await executionArn(nameOrArn);
  await sfn.send(new RedriveExecutionCommand({ executionArn: arn }));
  console.log('Redriven; waiting for it to finish...');
  for (;;) {
    const d = await sfn.send(new DescribeExecutionCommand({ executionArn: arn }));
    if (d.status !== 'RUNNING') break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  await show(arn);
}

async function followUps() {
  const dynamo = DynamoDBDocumentClient.from(
    new DynamoDBClient({ ...clientConfig, ...(local ? { endpoint: dynamodbEndpoint } : {}) }),
  );
  const { Items = [] } = await dynamo.send(
    new QueryCommand({
      TableName: `${SERVICE}-${stage}-follow_ups`,
      IndexName: 'byState',
      KeyConditionExpression: '#state = :open',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':open': 'open' },
      ScanIndexForward: false,
    }),
  );
  if (!Items.length) return console.log('No open follow-ups.');
  const runs = new Map<string, RunOf | undefined>();
  for (const f of Items as OpenFollowUp[]) {
    if (!runs.has(f.run_id)) runs.set(f.run_id, await runOf(f.run_id));
    console.log(`${describeFollowUp(f, runs.get(f.run_id), values).join('\n')}\n`);
  }
}

/** The execution a follow-up's run id names, on any machine of the registry's workflows. */
async function runOf(runId: string): Promise<RunOf | undefined> {
  if (runId.includes('#')) return undefined; // a webhook event's key (billing), not a run
  for (const machine of Object.keys(workflows)) {
    const machineArn = await stateMachineArn(`${SERVICE}-${stage}-${machine}`).catch(() => undefined);
    if (!machineArn) continue;
    const executionArn = `${machineArn.replace(':stateMachine:', ':execution:')}:${runId}`;
    const d = await sfn.send(new DescribeExecutionCommand({ executionArn })).catch((error: Error) => {
      if (error.name === 'ExecutionDoesNotExist') return undefined;
      throw error;
    });
    if (d) return { machine, executionArn, status: String(d.status), redrivable: d.redriveStatus === 'REDRIVABLE' };
  }
  return undefined;
}

function causeOf(cause?: string): string {
  try {
    const parsed = JSON.parse(cause ?? '') as { errorMessage?: string };
    return parsed.errorMessage ?? String(cause);
  } catch {
    return cause ?? '';
  }
}

const commands: Record<typeof command, () => Promise<void>> = { list, show: () => show(id), redrive: () => redrive(id), 'follow-ups': followUps };
await commands[command]().catch((error: Error) => {
  console.error(`${error.name}: ${error.message}`);
  process.exit(1);
});
