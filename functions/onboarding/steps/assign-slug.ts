import { assignPortalSlug } from '../../../lib/accounts/assign-portal-slug.ts';
import { onboardingStores } from '../../../lib/wiring/stores.ts';

const deps = onboardingStores();

export const handler = (input: { accountId: string }) => assignPortalSlug(deps, input.accountId);
