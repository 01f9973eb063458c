import { archiveStorageTree } from '../../../lib/offboarding/steps/archive-storage-tree.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';
import { stepPace, storage } from '../../../lib/wiring/adapters.ts';
import { storageArchive } from '../../../lib/wiring/offboarding.ts';
import { accountReader, ledger, lifecycle, runs } from '../../../lib/wiring/stores.ts';

const deps = { storage: storage(), ledger: ledger(), accounts: accountReader(), lifecycle: lifecycle(), archivePath: storageArchive() };

export const handler = integrationStep('dropbox', runs(), (input) => archiveStorageTree(deps, input), stepPace('dropbox', 'takeBack'));
