import { startBatchRows } from '../../../lib/onboarding/batches.ts';
import { startRowAsService } from '../../../lib/wiring/onboarding.ts';
import { batches } from '../../../lib/wiring/stores.ts';

const deps = { batches: batches(), startRow: startRowAsService };

export const handler = (input: { batchId: string }) => startBatchRows(deps, input.batchId);
