// The enhanced onboarding's upload: the scraped pages as a CSV file in the
// client's storage folder, under "04 Website". It needs two earlier steps,
// the scrape and the storage tree; when either has not finished, it fails
// with PrerequisiteMissing, which is recorded for follow-up and runs again on
// a redrive, after them.
import type { Storage } from '../integrations/storage.ts';
import { skipped, type StepResult } from '../provisioning/outcomes.ts';
import { STORAGE_FOLDERS } from '../provisioning/storage-tree.ts';
import { remembered, type Ledger } from '../provisioning/ledger.ts';
import { pagesCsv } from './content-csv.ts';
import type { CrawlStepInput } from './crawl-job.ts';
import type { CrawlRecords } from './records.ts';
import { PrerequisiteMissing } from './site-errors.ts';

export const CONTENT_FOLDER = STORAGE_FOLDERS[3];
export const CONTENT_FILE = 'website-content.csv';

export interface UploadDeps extends Pick<CrawlRecords, 'jobs' | 'results' | 'events'> {
  storage: Storage | null;
  ledger: Ledger;
}

export async function uploadSiteCsv(deps: UploadDeps, input: CrawlStepInput): Promise<StepResult> {
  const { storage } = deps;
  if (!storage) return skipped('Dropbox is not configured in this deployment');
  const job = await deps.jobs.get(input.jobId);
  if (!job) return skipped('No website was given, so there is no content to upload');
  if (!(await deps.results.scrape(job.job_id))) throw new PrerequisiteMissing('The content CSV waits for the website scrape, which has not finished');
  // Written by provisionStorageTree, once the client's folder exists.
  const tree = await deps.ledger.get<{ path: string }>(input.accountId, 'dropbox#tree');
  if (!tree) throw new PrerequisiteMissing('The content CSV waits for the client storage folder, which has not been created');

  const file = await remembered(deps.ledger, { accountId: input.accountId, resource: `dropbox#site-content#${job.job_id}`, maker: job.job_id }, async () => {
    const pages = await deps.results.pages(job.job_id);
    const written = await storage.writeFile(`${tree.path}/${CONTENT_FOLDER}/${CONTENT_FILE}`, pagesCsv(pages));
    await deps.events.record(input.accountId, {
      jobId: job.job_id,
      type: 'upload.completed',
      message: `Uploaded the content of ${pages.length} page${pages.length === 1 ? '' : 's'} to ${written.path}`,
      data: { path: written.path, rows: pages.length, bytes: written.size },
    });
    return { path: written.path, rows: pages.length, bytes: written.size };
  });
  return { outcome: 'success', details: file };
}
