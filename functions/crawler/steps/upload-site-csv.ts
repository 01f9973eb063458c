import { stepPace, storage } from '../../../lib/adapters.ts';
import { crawlStep } from '../../../lib/crawler/crawl-step.ts';
import { crawlRecords } from '../../../lib/crawler/stores.ts';
import { uploadSiteCsv } from '../../../lib/crawler/upload-site-csv.ts';
import { stores } from '../../../lib/onboarding/stores.ts';

const deps = { ...crawlRecords, storage: storage(), ledger: stores.ledger };

export const handler = crawlStep('upload', stores.runs, (input) => uploadSiteCsv(deps, input), stepPace('upload'));
