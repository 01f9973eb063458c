import { finishCrawlJob, type BranchOutput, type CrawlStepInput } from '../../../lib/crawler/crawl-job.ts';
import { crawlRecords } from '../../../lib/crawler/stores.ts';

export const handler = (input: CrawlStepInput & { branches?: BranchOutput[] }) => finishCrawlJob(crawlRecords, input);
