// One cold start, in a process of its own: what Lambda's Node runtime does
// before the first answer. The runtime client has node:http loaded (it talks
// to the Runtime API with it) before it imports the handler, so the probe does
// the same. Plain JavaScript, so the probe itself costs the same for every
// bundle. Argument: the bundle's file URL. The event comes on stdin; the
// timings go to fd 3, so the handler's logs (stdout) cost what they cost.
import { createRequire } from 'node:module';
import { readFileSync, writeSync } from 'node:fs';

createRequire(import.meta.url)('node:http');
const event = JSON.parse(readFileSync(0, 'utf8'));
const context = {
  awsRequestId: `cold-${process.pid}`,
  functionName: 'bench',
  functionVersion: '$LATEST',
  memoryLimitInMB: '1024',
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => 30_000,
};

const startedAt = performance.now();
const { handler } = await import(process.argv[2]);
const loadedAt = performance.now();
let answer;
try {
  const result = await handler(event, context);
  answer = result && typeof result === 'object' && 'statusCode' in result ? String(result.statusCode) : 'ok';
} catch (error) {
  answer = `threw ${error?.name ?? 'error'}`;
}
const answeredAt = performance.now();
// performance.now() counts from the process's start, so answeredAt is the whole cold start.
writeSync(3, JSON.stringify({ bootMs: startedAt, importMs: loadedAt - startedAt, firstCallMs: answeredAt - loadedAt, totalMs: answeredAt, answer }));
process.exit(0);
