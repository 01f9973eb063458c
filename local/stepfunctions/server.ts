// The AWS JSON 1.0 protocol of Step Functions over the local engine, so that
// @aws-sdk/client-sfn and the AWS CLI (`--endpoint-url`) work against it unchanged.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SfnError, type StepFunctionsEngine } from './engine.ts';

type Body = Record<string, unknown>;

export interface LocalStepFunctionsServer {
  endpoint: string;
  stop(): Promise<void>;
}

export async function serveStepFunctions(engine: StepFunctionsEngine, port: number): Promise<LocalStepFunctionsServer> {
  const operations: Record<string, (b: Body) => unknown> = {
    ListStateMachines: () => ({ stateMachines: engine.listStateMachines() }),
    DescribeStateMachine: (b) => engine.describeStateMachine(str(b.stateMachineArn)),
    StartExecution: (b) => engine.startExecution(str(b.stateMachineArn), opt(b.name), opt(b.input)),
    DescribeExecution: (b) => engine.describeExecution(str(b.executionArn)),
    ListExecutions: (b) =>
      engine.listExecutions(str(b.stateMachineArn), opt(b.statusFilter) as never, num(b.maxResults), opt(b.nextToken)),
    GetExecutionHistory: (b) =>
      engine.getExecutionHistory(str(b.executionArn), b.reverseOrder === true, num(b.maxResults), opt(b.nextToken)),
    StopExecution: (b) => engine.stopExecution(str(b.executionArn), opt(b.error), opt(b.cause)),
    RedriveExecution: (b) => engine.redriveExecution(str(b.executionArn)),
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(payload, epochSeconds));
      };
      // A local control, not an AWS operation: { seconds } makes every Wait state that starts last that long, null ends it.
      if (req.method === 'POST' && req.url === '/_local/waits') {
        let seconds: unknown;
        try {
          seconds = (JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { seconds?: unknown }).seconds;
        } catch {
          seconds = undefined;
        }
        if (seconds !== null && (typeof seconds !== 'number' || seconds < 0)) return reply(400, { message: 'Send { "seconds": <number> } or { "seconds": null }' });
        engine.shortenWaits(seconds ?? undefined);
        return reply(200, { seconds });
      }
      const target = String(req.headers['x-amz-target'] ?? '');
      const operation = operations[target.replace(/^AWSStepFunctions\./, '')];
      if (!operation) return reply(400, { __type: 'UnknownOperationException', message: `Unsupported operation ${target}` });
      try {
        const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body) : {};
        reply(200, operation(body) ?? {});
      } catch (error) {
        if (error instanceof SfnError) return reply(400, { __type: error.type, message: error.message });
        reply(500, { __type: 'InternalServerError', message: String((error as Error).message) });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function str(v: unknown): string {
  if (typeof v !== 'string' || !v) throw new SfnError('InvalidArn', 'A required ARN is missing');
  return v;
}
const opt = (v: unknown) => (typeof v === 'string' ? v : undefined);
const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** The JSON protocol carries timestamps as epoch seconds. */
function epochSeconds(key: string, value: unknown) {
  return /Date$|^timestamp$/.test(key) && typeof value === 'number' ? value / 1000 : value;
}
