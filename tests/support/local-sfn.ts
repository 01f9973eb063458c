// The local Step Functions endpoint for one test file: machines of its own, its
// Lambdas faked by an Invoke, driven through the real AWS SDK client.
import { SFNClient } from '@aws-sdk/client-sfn';
import { StepFunctionsEngine, type Invoke, type MachineDefinition } from '../../local/stepfunctions/engine.ts';
import { serveStepFunctions } from '../../local/stepfunctions/server.ts';

/** A state machine named `name` in the local endpoint's account and region. */
export function localMachine(name: string, definition: MachineDefinition['definition']): MachineDefinition {
  return {
    arn: `arn:aws:states:eu-west-1:000000000000:stateMachine:${name}`,
    name,
    roleArn: 'arn:aws:iam::000000000000:role/r',
    creationDate: Date.now(),
    functionArns: {},
    definition,
  };
}

const servers: { stop(): Promise<void> }[] = [];

/** Serves the machines until stopLocalStepFunctions (a test file's afterEach). */
export async function serveLocalStepFunctions(machines: MachineDefinition[], invoke: Invoke, dataDir?: string) {
  const engine = new StepFunctionsEngine(machines, invoke, dataDir);
  const server = await serveStepFunctions(engine, 0);
  servers.push(server);
  const client = new SFNClient({ endpoint: server.endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
  return { engine, client };
}

export async function stopLocalStepFunctions(): Promise<void> {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
}
