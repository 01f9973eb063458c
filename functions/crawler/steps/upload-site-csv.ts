import { config } from '../../../lib/config.ts';
import { crawlStep } from '../../../lib/crawler/crawl-step.ts';
import { crawlRecords } from '../../../lib/crawler/stores.ts';
import { uploadSiteCsv } from '../../../lib/crawler/upload-site-csv.ts';
import { dropboxStorage } from '../../../lib/integrations/dropbox-storage.ts';
import { stores, vendorPolicy } from '../../../lib/onboarding/stores.ts';

const deps = {
  ...crawlRecords,
  storage: config.storage && dropboxStorage(config.storage, vendorPolicy),
  ledger: stores.ledger,
};

export const handler = crawlStep('upload', stores.runs, (input) => uploadSiteCsv(deps, input));
