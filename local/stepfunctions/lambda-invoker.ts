import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { Invoke, InvokeOutcome } from './engine.ts';

/** Invokes step Lambdas through serverless-offline's Lambda endpoint. */
export function lambdaInvoker(endpoint: string, region: string): Invoke {
  const client = new LambdaClient({
    endpoint,
    region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    requestHandler: { httpAgent: { keepAlive: true, maxSockets: 256 } },
  });
  return async (functionName, payload): Promise<InvokeOutcome> => {
    try {
      const res = await client.send(new InvokeCommand({ FunctionName: functionName, Payload: JSON.stringify(payload) }));
      const text = res.Payload ? Buffer.from(res.Payload).toString('utf8') : 'null';
      const body = text ? JSON.parse(text) : null;
      if (res.FunctionError) {
        return {
          ok: false,
          errorType: body?.errorType ?? 'Error',
          errorMessage: body?.errorMessage ?? 'The function failed',
          trace: body?.stackTrace ?? body?.trace,
        };
      }
      return { ok: true, payload: body };
    } catch (error) {
      return { ok: false, errorType: 'Lambda.ServiceException', errorMessage: (error as Error).message };
    }
  };
}
