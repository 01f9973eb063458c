import { storage, storageRoot } from '../../../lib/adapters.ts';
import { integrationStep } from '../../../lib/onboarding/steps/integration-step.ts';
import { provisionStorageTree } from '../../../lib/onboarding/steps/provision-storage-tree.ts';
import { stores } from '../../../lib/onboarding/stores.ts';

const deps = { storage: storage(), rootPath: storageRoot(), ledger: stores.ledger, accounts: stores.accounts };

export const handler = integrationStep('dropbox', stores.runs, (input) => provisionStorageTree(deps, input));
