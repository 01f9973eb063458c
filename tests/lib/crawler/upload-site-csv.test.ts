import { parse } from 'csv-parse/sync';
import { beforeEach, describe, expect, it } from 'vitest';
import { openCrawlJob, scrapeSite } from '../../../lib/crawler/crawl-job.ts';
import { dynamodbCrawlRecords } from '../../../lib/crawler/dynamodb-records.ts';
import type { CrawlRecords } from '../../../lib/crawler/records.ts';
import { uploadSiteCsv } from '../../../lib/crawler/upload-site-csv.ts';
import { useDynamo } from '../../support/dynamo.ts';
import { fakeLedger, fakeScraper, fakeStorage } from '../../support/fakes.ts';

const dynamo = useDynamo();
let records: CrawlRecords;
let ledger: ReturnType<typeof fakeLedger>;
let storage: ReturnType<typeof fakeStorage>;
const pages = [
  { url: 'https://acme.example/', title: 'Home', description: 'd', headings: ['h1: Home'], wordCount: 3, text: 'Hello, "world"\nagain' },
  { url: 'https://acme.example/about', title: 'About', description: '', headings: [], wordCount: 1, text: 'About' },
];

beforeEach(() => {
  records = dynamodbCrawlRecords({ db: dynamo.db, tables: dynamo.tables });
  ledger = fakeLedger();
  storage = fakeStorage();
});

async function job(scraped: boolean) {
  const input = { accountId: crypto.randomUUID(), jobId: `run-${crypto.randomUUID()}` };
  await openCrawlJob(records, { job_id: input.jobId, account_id: input.accountId, kind: 'onboarding', url: 'https://acme.example/', context: {}, requested_at: new Date().toISOString() });
  if (scraped) {
    await scrapeSite({ ...records, scraper: fakeScraper(pages), maxPages: 10 }, input);
  }
  return input;
}

describe('uploading the content CSV', () => {
  it("writes one row per scraped page into the client's website folder, once", async () => {
    const input = await job(true);
    await ledger.put(input.accountId, 'dropbox#tree', { path: '/Clients/acme', folders: 10, createdAt: 'x' });
    const deps = { ...records, storage, ledger };
    const result = await uploadSiteCsv(deps, input);
    expect(result).toEqual({ outcome: 'success', details: { path: '/Clients/acme/04 Website/website-content.csv', rows: 2, bytes: expect.any(Number) } });
    const csv = storage.files.get('/Clients/acme/04 Website/website-content.csv')!;
    const rows = parse(csv, { bom: true, columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.url, r.text])).toEqual([
      ['https://acme.example/', 'Hello, "world"\nagain'],
      ['https://acme.example/about', 'About'],
    ]);
    storage.files.clear();
    await uploadSiteCsv(deps, input);
    expect(storage.files.size).toBe(0); // the ledger remembers the upload
    expect((await records.events.recent(input.accountId, 10)).filter((e) => e.type === 'upload.completed')).toHaveLength(1);
  });

  it('fails, waiting for them, while the scrape or the storage folder is missing', async () => {
    const unscraped = await job(false);
    await ledger.put(unscraped.accountId, 'dropbox#tree', { path: '/Clients/x' });
    await expect(uploadSiteCsv({ ...records, storage, ledger }, unscraped)).rejects.toMatchObject({ name: 'PrerequisiteMissing', message: expect.stringContaining('scrape') });
    const noFolder = await job(true);
    await expect(uploadSiteCsv({ ...records, storage, ledger }, noFolder)).rejects.toMatchObject({ name: 'PrerequisiteMissing', message: expect.stringContaining('storage folder') });
    expect(storage.files.size).toBe(0);
  });

  it('is skipped without storage, or without a website', async () => {
    const input = await job(true);
    expect(await uploadSiteCsv({ ...records, storage: null, ledger }, input)).toEqual({ outcome: 'skipped', details: { reason: 'Dropbox is not configured in this deployment' } });
    expect((await uploadSiteCsv({ ...records, storage, ledger }, { accountId: input.accountId, jobId: 'none' })).outcome).toBe('skipped');
  });
});
