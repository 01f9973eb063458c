import { scrapeSite } from '../../../lib/crawler/crawl-job.ts';
import { crawlStep } from '../../../lib/crawler/crawl-step.ts';
import { crawlMaxPages, siteScraper, stepPace } from '../../../lib/wiring/adapters.ts';
import { crawlRecords, runs } from '../../../lib/wiring/stores.ts';

const deps = { ...crawlRecords(), scraper: siteScraper(), maxPages: crawlMaxPages() };

export const handler = crawlStep('scrape', runs(), (input) => scrapeSite(deps, input), stepPace('scrape'));
