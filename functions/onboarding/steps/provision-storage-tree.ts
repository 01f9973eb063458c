import { stepPace, storage, storageRoot } from '../../../lib/adapters.ts';
import { provisionStorageTree } from '../../../lib/onboarding/steps/provision-storage-tree.ts';
import { stores } from '../../../lib/onboarding/stores.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';

const deps = { storage: storage(), rootPath: storageRoot(), ledger: stores.ledger, accounts: stores.accounts };

export const handler = integrationStep('dropbox', stores.runs, (input) => provisionStorageTree(deps, input), stepPace('dropbox'));
