import { config } from '../../../lib/config.ts';
import { dropboxStorage } from '../../../lib/integrations/dropbox-storage.ts';
import { provisionStorageTree } from '../../../lib/onboarding/steps/provision-storage-tree.ts';
import { stores, vendorPolicy } from '../../../lib/onboarding/stores.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';

const deps = {
  storage: config.storage && dropboxStorage(config.storage, vendorPolicy),
  rootPath: config.storage?.rootPath ?? '/Clients',
  ledger: stores.ledger,
  accounts: stores.accounts,
};

export const handler = integrationStep('dropbox', stores.runs, (input) => provisionStorageTree(deps, input));
