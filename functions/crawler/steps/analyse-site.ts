import { siteAnalyzer, stepPace } from '../../../lib/adapters.ts';
import { analyseSite } from '../../../lib/crawler/crawl-job.ts';
import { crawlStep } from '../../../lib/crawler/crawl-step.ts';
import { crawlRecords } from '../../../lib/crawler/stores.ts';
import { stores } from '../../../lib/onboarding/stores.ts';

const deps = { ...crawlRecords, analyzer: siteAnalyzer() };

export const handler = crawlStep('analysis', stores.runs, (input) => analyseSite(deps, input), stepPace('analysis'));
