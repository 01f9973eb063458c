import { finishCrawlJob, type BranchOutput, type CrawlStepInput } from '../../../lib/crawler/crawl-job.ts';
import { crawlRecords } from '../../../lib/wiring/stores.ts';

const deps = crawlRecords();

export const handler = (input: CrawlStepInput & { branches?: BranchOutput[] }) => finishCrawlJob(deps, input);
