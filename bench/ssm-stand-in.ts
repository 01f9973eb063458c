// A stand-in for SSM Parameter Store's GetParameter(s) (the AWS JSON 1.1
// protocol the SDK speaks), in the bench's own process: enough to measure
// what reading secrets from SSM at cold start costs a function (loading the
// client, its first request), not SSM's own latency, which only adds to it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startSsmStandIn(): Promise<{ endpoint: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const input = JSON.parse(text || '{}') as { Name?: string; Names?: string[] };
      const parameter = (name: string) => ({ Name: name, Type: 'SecureString', Value: `value-of-${name}`, Version: 1, ARN: `arn:aws:ssm:eu-west-1:000000000000:parameter${name}` });
      const body = String(req.headers['x-amz-target']).endsWith('.GetParameters')
        ? { Parameters: (input.Names ?? []).map(parameter), InvalidParameters: [] }
        : { Parameter: parameter(input.Name ?? '') };
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
