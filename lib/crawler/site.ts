// What the crawler learns about a client's website, and the two ports that
// learn it. Each port has a paid adapter (PageSpeed Insights, Firecrawl) and a
// built-in one (our own page measurement and crawler); both adapters of a port
// answer with the same shape, so nothing downstream knows which one ran.

/** Lighthouse lab figures of one form factor (PageSpeed Insights only). */
export interface LabMetrics {
  /** 0–100; null when Lighthouse could not score the page. */
  performanceScore: number | null;
  lcpMs: number | null;
  cls: number | null;
  tbtMs: number | null;
  fcpMs: number | null;
  speedIndexMs: number | null;
}

/**
 * One analysis of a page. Every field is always present: the built-in
 * measurement fills the page facts and leaves the lab figures null;
 * PageSpeed Insights fills the lab figures and leaves the page facts it does
 * not report null.
 */
export interface SiteAnalysis {
  source: 'pagespeed' | 'measurement';
  /** The address asked for. */
  url: string;
  /** The address analysed, after redirects. */
  finalUrl: string;
  analysedAt: string;
  https: boolean;
  status: number | null;
  /** From the start of the request (redirects included) to the first byte of the page. */
  ttfbMs: number | null;
  /** From the start of the request to the last byte of the page. */
  totalMs: number | null;
  /** Bytes of the page as transferred (compressed, if the site compresses). */
  bytes: number | null;
  scripts: number | null;
  stylesheets: number | null;
  images: number | null;
  title: string | null;
  description: string | null;
  mobile: LabMetrics | null;
  desktop: LabMetrics | null;
}

/** One page of the site as it goes into the content CSV. */
export interface ScrapedPage {
  url: string;
  title: string;
  description: string;
  /** In document order, each as "h2: Text". */
  headings: string[];
  wordCount: number;
  /** The visible text, one block (paragraph, heading, list item, ...) per line. */
  text: string;
}

export interface ScrapeResult {
  source: 'crawler' | 'firecrawl';
  startUrl: string;
  pages: ScrapedPage[];
  /** Pages left out, by reason (robots, other origin, not HTML, failed, ...). */
  skipped: Record<string, number>;
}

export interface SiteAnalyzer {
  analyse(url: string): Promise<SiteAnalysis>;
}

export interface SiteScraper {
  scrape(url: string, options: { maxPages: number }): Promise<ScrapeResult>;
}

/** The figures worth showing in an outcome, a job or a summary: the non-null headline numbers. */
export function keyFigures(analysis: SiteAnalysis): Record<string, string | number | boolean> {
  const figures: Record<string, string | number | boolean | null> =
    analysis.source === 'pagespeed'
      ? {
          source: analysis.source,
          performanceScore: analysis.mobile?.performanceScore ?? null,
          desktopPerformanceScore: analysis.desktop?.performanceScore ?? null,
          lcpMs: analysis.mobile?.lcpMs ?? null,
          cls: analysis.mobile?.cls ?? null,
          tbtMs: analysis.mobile?.tbtMs ?? null,
          fcpMs: analysis.mobile?.fcpMs ?? null,
        }
      : {
          source: analysis.source,
          status: analysis.status,
          ttfbMs: analysis.ttfbMs,
          totalMs: analysis.totalMs,
          bytes: analysis.bytes,
          https: analysis.https,
          title: analysis.title,
        };
  return Object.fromEntries(Object.entries(figures).filter(([, v]) => v !== null)) as Record<string, string | number | boolean>;
}
