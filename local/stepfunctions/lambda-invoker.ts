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
      if (res.FunctionError) return failureFrom(body);
      return { ok: true, payload: body };
    } catch (error) {
      return { ok: false, errorType: 'Lambda.ServiceException', errorMessage: (error as Error).message };
    }
  };
}

/**
 * The Lambda error as AWS reports it. serverless-offline always says
 * errorType "Error"; AWS's Node runtime uses the error's name, which
 * state machines match on (ErrorEquals). The name survives as the first line
 * of the stack ("VendorUnavailable: message"), so it is recovered from there.
 */
export function failureFrom(body: { errorType?: string; errorMessage?: string; trace?: string[]; stackTrace?: string[] } | null): InvokeOutcome {
  const trace = body?.stackTrace ?? body?.trace;
  const errorMessage = body?.errorMessage ?? 'The function failed';
  let errorType = body?.errorType ?? 'Error';
  const named = /^([A-Za-z_$][\w$.]*): /.exec(trace?.[0] ?? '');
  if (errorType === 'Error' && named && trace![0]!.slice(named[0].length).startsWith(errorMessage)) errorType = named[1]!;
  return { ok: false, errorType, errorMessage, trace };
}

