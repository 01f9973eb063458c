import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, pagesCsv } from '../../../lib/crawler/content-csv.ts';
import type { ScrapedPage } from '../../../lib/crawler/site.ts';

const pages: ScrapedPage[] = [
  {
    url: 'https://acme.example/',
    title: 'Acme, "the" bakery',
    description: 'Bread; cakes',
    headings: ['h1: Welcome', 'h2: Bread, rolls'],
    wordCount: 7,
    text: 'He said "fresh, daily".\nSecond line\r\nThird line',
  },
  { url: 'https://acme.example/about', title: 'About', description: '', headings: [], wordCount: 0, text: '' },
  { url: 'https://acme.example/x', title: '=HYPERLINK("http://evil.example")', description: '+1 555', headings: ['h1: -minus'], wordCount: 1, text: '@mention' },
];

const readBack = (csv: string) => parse(csv, { bom: true, columns: true, skip_empty_lines: false }) as Record<string, string>[];

describe('the content CSV', () => {
  it('has a header and one row per page, in order', () => {
    const rows = readBack(pagesCsv(pages));
    expect(Object.keys(rows[0]!)).toEqual([...CSV_COLUMNS]);
    expect(rows.map((r) => r.url)).toEqual(pages.map((p) => p.url));
  });

  it('keeps commas, quotes and line breaks inside cells through a round trip', () => {
    const [first] = readBack(pagesCsv(pages));
    expect(first).toEqual({
      url: 'https://acme.example/',
      title: 'Acme, "the" bakery',
      description: 'Bread; cakes',
      headings: 'h1: Welcome\nh2: Bread, rolls',
      word_count: '7',
      text: 'He said "fresh, daily".\nSecond line\r\nThird line',
    });
  });

  it('writes empty cells for what a page lacks', () => {
    expect(readBack(pagesCsv(pages))[1]).toEqual({ url: 'https://acme.example/about', title: 'About', description: '', headings: '', word_count: '0', text: '' });
  });

  it('defuses cells a spreadsheet would run as formulas', () => {
    expect(readBack(pagesCsv(pages))[2]).toMatchObject({
      title: `'=HYPERLINK("http://evil.example")`,
      description: "'+1 555",
      headings: 'h1: -minus',
      text: "'@mention",
    });
  });

  it('starts with a UTF-8 byte-order mark, so spreadsheets read accents right', () => {
    expect(pagesCsv([{ ...pages[1]!, title: 'Café' }]).startsWith('\uFEFFurl,')).toBe(true);
  });

  it('is only the header for a site with no pages', () => {
    expect(pagesCsv([])).toBe(`\uFEFF${CSV_COLUMNS.join(',')}\r\n`);
  });
});
