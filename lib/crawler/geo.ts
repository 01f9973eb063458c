// Geo coverage: of the crawled pages, how many mention each term of a geo
// target (its city, region and industry) as a whole word, in any case. A
// local business whose pages never name its city is the first thing an SEO
// review points out.
import type { GeoContext } from './records.ts';
import type { ScrapedPage } from './site.ts';

const TERMS = ['industry', 'city', 'region'] as const;

export function geoCoverage(pages: ScrapedPage[], context: GeoContext): { pagesChecked: number; mentions: Partial<Record<keyof GeoContext, number>> } {
  const mentions: Partial<Record<keyof GeoContext, number>> = {};
  for (const term of TERMS) {
    const value = context[term]?.trim();
    if (!value) continue;
    const pattern = wholeWords(value);
    mentions[term] = pages.filter((p) => pattern.test([p.title, p.description, ...p.headings, p.text].join('\n'))).length;
  }
  return { pagesChecked: pages.length, mentions };
}

/** The phrase as whole words: "Bakery" matches "bakery," but not "bakeryworks"; spacing may vary. */
function wholeWords(phrase: string): RegExp {
  const escaped = phrase
    .split(/\s+/)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('\\s+');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'iu');
}
