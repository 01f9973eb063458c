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
      // As Step Functions names them: the Lambda API's exception (it has a $fault), else a call that never got an answer.
      const { name, message, $fault } = error as Error & { $fault?: string };
      return { ok: false, errorType: $fault ? `Lambda.${name}` : 'Lambda.SdkClientException', errorMessage: message };
    }
  };
}

/** What serverless-offline says when a function runs past its timeout (its LambdaTimeoutError has no name). */
const OFFLINE_TIMEOUT = '[504] - Lambda timeout.';

/**
 * The Lambda error as AWS reports it. serverless-offline always says
 * errorType "Error"; AWS's Node runtime uses the error's name, which
 * state machines match on (ErrorEquals). The name survives as the first line
 * of the stack ("VendorUnavailable: message", or only the name for an empty
 * message), so it is recovered from there. A function past its own timeout
 * is Sandbox.Timedout, as Lambda's Node runtimes report it.
 */
export function failureFrom(body: { errorType?: string; errorMessage?: string; trace?: string[]; stackTrace?: string[] } | null): InvokeOutcome {
  const trace = body?.stackTrace ?? body?.trace;
  const errorMessage = body?.errorMessage ?? 'The function failed';
  let errorType = body?.errorType ?? 'Error';
  if (errorType === 'Error' && errorMessage === OFFLINE_TIMEOUT) return { ok: false, errorType: 'Sandbox.Timedout', errorMessage, trace };
  const firstLine = errorMessage.split('\n')[0];
  const named = /^([A-Za-z_$][\w$.]*)(?:: (.*))?$/.exec(trace?.[0] ?? '');
  if (errorType === 'Error' && named && (named[2] ?? '') === firstLine) errorType = named[1]!;
  return { ok: false, errorType, errorMessage, trace };
}
