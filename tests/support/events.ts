import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

/** An API Gateway HTTP API (payload 2.0) event, as Lambda receives it. */
export function httpEvent(init: {
  method?: string;
  path?: string;
  routeKey?: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  body?: string;
  pathParameters?: Record<string, string>;
  sourceIp?: string;
}): APIGatewayProxyEventV2 {
  const method = init.method ?? 'GET';
  const path = init.path ?? '/';
  return {
    version: '2.0',
    routeKey: init.routeKey ?? `${method} ${path}`,
    rawPath: path,
    rawQueryString: new URLSearchParams(init.query ?? {}).toString(),
    headers: init.headers ?? {},
    queryStringParameters: init.query,
    pathParameters: init.pathParameters,
    body: init.body,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'api',
      domainName: 'api.example.test',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: init.sourceIp ?? '203.0.113.7', userAgent: 'vitest' },
      requestId: 'req-1',
      routeKey: init.routeKey ?? `${method} ${path}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
  };
}

let counter = 0;
export function lambdaContext(): Context {
  counter += 1;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'test-fn',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:test-fn',
    memoryLimitInMB: '256',
    awsRequestId: `aws-req-${counter}`,
    logGroupName: 'lg',
    logStreamName: 'ls',
    getRemainingTimeInMillis: () => 10_000,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}
