import { beginOffboarding } from '../../../lib/offboarding/begin.ts';
import { beginOffboardingDeps } from '../../../lib/wiring/offboarding.ts';

const deps = beginOffboardingDeps();

export const handler = (input: { accountId: string; runId: string }) => beginOffboarding(deps, input);
