import { crawlStep } from '../../../lib/crawler/crawl-step.ts';
import { uploadSiteCsv } from '../../../lib/crawler/upload-site-csv.ts';
import { stepPace, storage } from '../../../lib/wiring/adapters.ts';
import { crawlRecords, ledger, runs } from '../../../lib/wiring/stores.ts';

const deps = { ...crawlRecords(), storage: storage(), ledger: ledger() };

export const handler = crawlStep('upload', runs(), (input) => uploadSiteCsv(deps, input), stepPace('upload'));
