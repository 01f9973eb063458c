// Reads an HTML page the way a browser builds it: parse5 is the WHATWG
// parsing algorithm (the one jsdom uses), so broken markup, implied tags and
// character references come out as a browser would show them, and text that
// looks like markup inside a script never becomes content.
import { parse, type DefaultTreeAdapterTypes as T } from 'parse5';

export interface PageFacts {
  title: string;
  description: string;
  /** In document order, each as "h2: Text". */
  headings: string[];
  /** The visible text of the main content, one block per line. */
  text: string;
  wordCount: number;
  /** Absolute http(s) links, fragments removed, in document order, without repeats. */
  links: string[];
  /** Executable scripts, inline or external. */
  scripts: number;
  /** External stylesheets and <style> blocks. */
  stylesheets: number;
  images: number;
}

// Never shown as text. (nav is menus repeated on every page, not content.)
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'embed', 'canvas', 'select', 'head', 'nav']);
// Elements that start and end a line of text.
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset',
  'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'li', 'main', 'ol',
  'p', 'pre', 'section', 'summary', 'table', 'tbody', 'tfoot', 'thead', 'tr', 'ul', 'legend',
]);
const HEADING = /^h([1-6])$/;
const JS_TYPES = /^(|module|(text|application)\/(x-)?(java|ecma)script|text\/jscript|text\/livescript)$/i;

const isElement = (node: T.Node): node is T.Element => 'tagName' in node;
const attr = (el: T.Element, name: string) => el.attrs.find((a) => a.name === name)?.value;
const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();
const words = new Intl.Segmenter(undefined, { granularity: 'word' });

/** Words as a reader counts them, in any script (ICU word segmentation). */
export function countWords(text: string): number {
  let n = 0;
  for (const segment of words.segment(text)) if (segment.isWordLike) n++;
  return n;
}

export function readPage(html: string, pageUrl: string): PageFacts {
  const document = parse(html);
  const all: T.Element[] = [];
  const collect = (node: T.ParentNode) => {
    for (const child of node.childNodes) {
      if (!isElement(child)) continue;
      all.push(child);
      // A template's content is inert: its links, scripts and images are not the page's.
      if (child.tagName !== 'template') collect(child);
    }
  };
  collect(document);

  const first = (test: (el: T.Element) => boolean) => all.find(test);
  const titleEl = first((el) => el.tagName === 'title');
  const meta = (key: 'name' | 'property', value: string) => {
    const el = first((e) => e.tagName === 'meta' && attr(e, key)?.trim().toLowerCase() === value);
    return collapse((el && attr(el, 'content')) ?? '');
  };
  const description = meta('name', 'description') || meta('property', 'og:description');

  const baseEl = first((el) => el.tagName === 'base' && attr(el, 'href') !== undefined);
  const base = (baseEl && resolve(attr(baseEl, 'href')!, pageUrl)) ?? pageUrl;
  const links = [
    ...new Set(
      all
        .filter((el) => (el.tagName === 'a' || el.tagName === 'area') && attr(el, 'href'))
        .map((el) => resolve(attr(el, 'href')!, base))
        .filter((u): u is string => u !== undefined),
    ),
  ];

  // The main content when the page marks it, else the whole body.
  const body = first((el) => el.tagName === 'body');
  const scope = first((el) => el.tagName === 'main' || attr(el, 'role') === 'main') ?? body;
  const { lines, headings } = scope ? visibleText(scope) : { lines: [], headings: [] };
  const text = lines.join('\n');

  return {
    title: titleEl ? collapse(textOf(titleEl)) : '',
    description,
    headings,
    text,
    wordCount: countWords(text),
    links,
    scripts: all.filter((el) => el.tagName === 'script' && JS_TYPES.test((attr(el, 'type') ?? '').trim())).length,
    stylesheets: all.filter(
      (el) => el.tagName === 'style' || (el.tagName === 'link' && /(^|\s)stylesheet(\s|$)/i.test(attr(el, 'rel') ?? '') && attr(el, 'href')),
    ).length,
    images: all.filter((el) => el.tagName === 'img').length,
  };
}

function textOf(node: T.ParentNode): string {
  return node.childNodes.map((c) => (c.nodeName === '#text' ? (c as T.TextNode).value : isElement(c) ? textOf(c) : '')).join('');
}

function visibleText(root: T.Element): { lines: string[]; headings: string[] } {
  const lines: string[] = [];
  const headings: string[] = [];
  let line = '';
  const breakLine = () => {
    const done = collapse(line);
    if (done) lines.push(done);
    line = '';
  };
  const walk = (node: T.ChildNode, pre: boolean) => {
    if (node.nodeName === '#text') {
      const value = (node as T.TextNode).value;
      if (!pre) line += value;
      else {
        // Preformatted text keeps its own line breaks.
        const parts = value.split('\n');
        parts.forEach((part, i) => {
          if (i > 0) breakLine();
          line += part;
        });
      }
      return;
    }
    if (!isElement(node) || SKIPPED.has(node.tagName)) return;
    if (attr(node, 'hidden') !== undefined || attr(node, 'aria-hidden') === 'true') return;
    if (node.tagName === 'br') return breakLine();
    const block = BLOCKS.has(node.tagName);
    if (block) breakLine();
    const level = HEADING.exec(node.tagName)?.[1];
    if (level) {
      const heading = collapse(textOf(node));
      if (heading) headings.push(`h${level}: ${heading}`);
    }
    for (const child of node.childNodes) walk(child, pre || node.tagName === 'pre');
    // Table cells share their row's line.
    if (node.tagName === 'td' || node.tagName === 'th') line += ' ';
    if (block) breakLine();
  };
  for (const child of root.childNodes) walk(child, root.tagName === 'pre');
  breakLine();
  return { lines, headings };
}

/** An absolute http(s) address without its fragment, or undefined. */
function resolve(href: string, base: string): string | undefined {
  try {
    const url = new URL(href.trim(), base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}
