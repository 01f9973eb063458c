import { crawlMaxPages, siteScraper, stepPace } from '../../../lib/adapters.ts';
import { scrapeSite } from '../../../lib/crawler/crawl-job.ts';
import { crawlStep } from '../../../lib/crawler/crawl-step.ts';
import { crawlRecords } from '../../../lib/crawler/stores.ts';
import { stores } from '../../../lib/onboarding/stores.ts';

const deps = { ...crawlRecords, scraper: siteScraper(), maxPages: crawlMaxPages() };

export const handler = crawlStep('scrape', stores.runs, (input) => scrapeSite(deps, input), stepPace('scrape'));
