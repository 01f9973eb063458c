import { assignPortalSlug } from '../../../lib/accounts/assign-portal-slug.ts';
import { stores } from '../../../lib/onboarding/stores.ts';

export const handler = (input: { accountId: string }) => assignPortalSlug(stores, input.accountId);
