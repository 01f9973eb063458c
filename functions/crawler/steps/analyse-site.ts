import { analyseSite } from '../../../lib/crawler/crawl-job.ts';
import { crawlStep } from '../../../lib/crawler/crawl-step.ts';
import { siteAnalyzer, stepPace } from '../../../lib/wiring/adapters.ts';
import { crawlRecords, runs } from '../../../lib/wiring/stores.ts';

const deps = { ...crawlRecords(), analyzer: siteAnalyzer() };

export const handler = crawlStep('analysis', runs(), (input) => analyseSite(deps, input), stepPace('analysis'));
