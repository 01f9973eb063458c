import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { failureFrom, lambdaInvoker } from '../../../local/stepfunctions/lambda-invoker.ts';

describe('Lambda errors from serverless-offline', () => {
  it("recover the error's name, as AWS reports it", () => {
    expect(
      failureFrom({ errorType: 'Error', errorMessage: 'dropbox: gave up', trace: ['VendorUnavailable: dropbox: gave up', '    at x'] }),
    ).toMatchObject({ ok: false, errorType: 'VendorUnavailable', errorMessage: 'dropbox: gave up' });
  });

  // The Node runtime reports errorType: error.name whatever the message (aws-lambda-nodejs-runtime-interface-client, src/Errors.js).
  it('recover the name of an error whose message has several lines, or none', () => {
    expect(
      failureFrom({ errorType: 'Error', errorMessage: 'first line\nsecond line', trace: ['VendorRejected: first line', 'second line', '    at x'] }),
    ).toMatchObject({ errorType: 'VendorRejected' });
    expect(failureFrom({ errorType: 'Error', errorMessage: '', trace: ['VendorRejected', '    at x'] })).toMatchObject({ errorType: 'VendorRejected' });
  });

  it('keep a plain Error, and an explicit type, as they are', () => {
    expect(failureFrom({ errorType: 'Error', errorMessage: 'boom', trace: ['Error: boom'] })).toMatchObject({ errorType: 'Error' });
    expect(failureFrom({ errorType: 'Sandbox.Timedout', errorMessage: 'x', trace: ['Other: x'] })).toMatchObject({ errorType: 'Sandbox.Timedout' });
  });

  it('do not take a name from a stack that belongs to another message', () => {
    expect(failureFrom({ errorType: 'Error', errorMessage: 'a', trace: ['TypeError: b'] })).toMatchObject({ errorType: 'Error' });
    expect(failureFrom({ errorType: 'Error', errorMessage: 'a', trace: ['TypeError: ab'] })).toMatchObject({ errorType: 'Error' });
  });

  // Lambda's Node runtimes report a function that runs past its timeout as Sandbox.Timedout (Lambda developer
  // guide, "Troubleshoot invocation issues"); serverless-offline throws a nameless "[504] - Lambda timeout.".
  it("name a function's own timeout as Lambda does", () => {
    expect(
      failureFrom({ errorType: 'Error', errorMessage: '[504] - Lambda timeout.', trace: ['Error: [504] - Lambda timeout.', '    at LambdaFunction.runHandler'] }),
    ).toMatchObject({ ok: false, errorType: 'Sandbox.Timedout' });
  });
});

// Step Functions names a failure to invoke the function after the Lambda API's exception
// (Lambda.ResourceNotFoundException, Lambda.TooManyRequestsException, ...), and a failure to reach
// the API Lambda.SdkClientException (Step Functions developer guide, handling Lambda service exceptions).
describe('failures to invoke a step Lambda', () => {
  it("carry the Lambda API's exception name", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' });
      res.end(JSON.stringify({ Type: 'User', message: 'Function not found: nope' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const invoke = lambdaInvoker(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'eu-west-1');
      expect(await invoke('nope', {})).toMatchObject({ ok: false, errorType: 'Lambda.ResourceNotFoundException' });
    } finally {
      server.close();
    }
  });

  it('are Lambda.SdkClientException when the API cannot be reached', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const invoke = lambdaInvoker(`http://127.0.0.1:${port}`, 'eu-west-1');
    expect(await invoke('any', {})).toMatchObject({ ok: false, errorType: 'Lambda.SdkClientException' });
  });
});
