import { provisionStorageTree } from '../../../lib/onboarding/steps/provision-storage-tree.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';
import { stepPace, storage, storageRoot } from '../../../lib/wiring/adapters.ts';
import { accounts, ledger, runs } from '../../../lib/wiring/stores.ts';

const deps = { storage: storage(), rootPath: storageRoot(), ledger: ledger(), accounts: accounts() };

export const handler = integrationStep('dropbox', runs(), (input) => provisionStorageTree(deps, input), stepPace('dropbox'));
