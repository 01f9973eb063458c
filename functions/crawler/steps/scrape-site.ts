import { scrapeSite } from '../../../lib/crawler/crawl-job.ts';
import { crawlStep } from '../../../lib/crawler/crawl-step.ts';
import { maxPages, siteScraper } from '../../../lib/crawler/site-tools.ts';
import { crawlRecords } from '../../../lib/crawler/stores.ts';
import { stores } from '../../../lib/onboarding/stores.ts';

const deps = { ...crawlRecords, scraper: siteScraper(), maxPages };

export const handler = crawlStep('scrape', stores.runs, (input) => scrapeSite(deps, input));
