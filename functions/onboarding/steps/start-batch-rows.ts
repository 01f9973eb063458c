import { startBatchRows } from '../../../lib/onboarding/batches.ts';
import { batchStore, startRowAsService } from '../../../lib/onboarding/wiring.ts';

const deps = { batches: batchStore, startRow: startRowAsService };

export const handler = (input: { batchId: string }) => startBatchRows(deps, input.batchId);
