import { json, type HttpResult } from '../http/endpoint.ts';
import type { RunAnswer } from './start-onboarding.ts';

/** How a run's state is answered over HTTP, by the onboarding endpoint and the run status endpoint alike. */
export function httpAnswer(answer: RunAnswer, ctx: { apiOrigin: string; correlationId: string }): HttpResult {
  if (answer.state === 'running') {
    return json(202, {
      status: 'running',
      accountId: answer.accountId,
      executionId: answer.runId,
      statusUrl: `${ctx.apiOrigin}/api/onboarding/runs/${answer.runId}`,
      ...(answer.progress ? { integrations: answer.progress } : {}),
    });
  }
  if (answer.state === 'broken') {
    return json(500, {
      error:
        answer.reason === 'not_started'
          ? { code: 'onboarding_not_started', message: 'The onboarding run was recorded but its workflow did not start; submit the form again to start it' }
          : { code: 'onboarding_stopped', message: 'The onboarding run stopped before it recorded an outcome; an operator can redrive it' },
      requestId: ctx.correlationId,
      accountId: answer.accountId,
      executionId: answer.runId,
    });
  }
  const result = { ...answer.result, executionId: answer.runId };
  if (result.success) return json(200, result);
  const failed = result.errors?.length ?? 0;
  return json(500, {
    ...result,
    error: { code: 'integrations_failed', message: `${failed} integration${failed === 1 ? '' : 's'} failed; recorded for follow-up` },
    requestId: ctx.correlationId,
  });
}
