// The scraped site as a CSV file, one row per page, written by csv-stringify
// (RFC 4180 quoting: commas, quotes and line breaks inside a cell survive).
// A spreadsheet treats a cell starting with = + - @ (or a tab or CR) as a
// formula, and the text comes from a website anyone could have written, so
// such a cell is prefixed with an apostrophe (OWASP's advice against CSV
// injection); nothing else is altered.
import { stringify } from 'csv-stringify/sync';
import type { ScrapedPage } from './site.ts';

export const CSV_COLUMNS = ['url', 'title', 'description', 'headings', 'word_count', 'text'] as const;

const FORMULA_START = /^[=+\-@\t\r]/;
const defuse = (cell: string) => (FORMULA_START.test(cell) ? `'${cell}` : cell);

export function pagesCsv(pages: ScrapedPage[]): string {
  const rows = pages.map((p) => [p.url, p.title, p.description, p.headings.join('\n'), String(p.wordCount), p.text].map(defuse));
  // A byte-order mark, so spreadsheet programs read the file as UTF-8.
  return `\uFEFF${stringify(rows, { header: true, columns: [...CSV_COLUMNS], quoted_match: /[\r\n,"]/, record_delimiter: '\r\n' })}`;
}
