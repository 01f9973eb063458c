import { describe, expect, it } from 'vitest';
import { countWords, readPage } from '../../../lib/crawler/html-page.ts';

const page = `<!doctype html>
<html lang="en">
<head>
  <title>  Acme   Bakery — Fresh bread  </title>
  <meta name="Description" content="Bread, cakes &amp; &quot;more&quot;">
  <base href="https://acme.example/shop/">
  <link rel="stylesheet" href="/site.css">
  <link rel="preload stylesheet" href="/fonts.css">
  <link rel="icon" href="/favicon.ico">
  <style>body { color: red }</style>
  <script src="/app.js"></script>
  <script type="module">import '/x.js'</script>
  <script type="application/ld+json">{"@type": "Bakery"}</script>
</head>
<body>
  <nav><a href="/about">About</a> <a href="contact#form">Contact</a></nav>
  <main>
    <h1>Welcome to   Acme</h1>
    <p>We bake bread, cakes and "other" things.<br>Since 1901.</p>
    <script>document.write("<p>not content</p>")</script>
    <template><p>Not shown</p><a href="/inert">x</a><img src="/inert.png"><script>1</script></template>
    <div hidden>Hidden text</div>
    <h2>Our <em>products</em></h2>
    <ul><li>Bread</li><li>Cakes</li></ul>
    <table><tr><th>Item</th><th>Price</th></tr><tr><td>Loaf</td><td>3</td></tr></table>
    <pre>line one
line two</pre>
    <img src="/a.jpg" alt="a"><img src="/b.jpg" alt="b">
    <a href="https://other.example/page">elsewhere</a>
    <a href="mailto:hello@acme.example">mail</a>
    <a href="javascript:void(0)">js</a>
    <a href="/about">About again</a>
  </main>
  <footer>Footer outside main</footer>
</body>
</html>`;

describe('reading a page', () => {
  const facts = readPage(page, 'https://acme.example/');

  it('takes the title and meta description, decoded and with whitespace collapsed', () => {
    expect(facts.title).toBe('Acme Bakery — Fresh bread');
    expect(facts.description).toBe('Bread, cakes & "more"');
  });

  it('lists headings in order, with their level', () => {
    expect(facts.headings).toEqual(['h1: Welcome to Acme', 'h2: Our products']);
  });

  it('keeps the visible text of the main content, one block per line', () => {
    expect(facts.text).toBe(
      [
        'Welcome to Acme',
        'We bake bread, cakes and "other" things.',
        'Since 1901.',
        'Our products',
        'Bread',
        'Cakes',
        'Item Price',
        'Loaf 3',
        'line one',
        'line two',
        'elsewhere mail js About again',
      ].join('\n'),
    );
    // Script text, templates, hidden elements, navigation and what lies outside <main> are not content.
    for (const absent of ['not content', 'Not shown', 'Hidden text', 'Footer', 'Contact']) expect(facts.text).not.toContain(absent);
  });

  it('counts the words of that text', () => {
    expect(facts.wordCount).toBe(countWords(facts.text));
    expect(countWords('Bread, cakes & "more" — since 1901.')).toBe(5);
    expect(countWords('東京のパン屋')).toBeGreaterThan(1);
  });

  it('resolves links against <base>, drops fragments and non-web schemes, and lists each once', () => {
    expect(facts.links).toEqual(['https://acme.example/about', 'https://acme.example/shop/contact', 'https://other.example/page']);
  });

  it('counts executable scripts (not JSON-LD), stylesheets (linked and inline) and images', () => {
    expect(facts).toMatchObject({ scripts: 3, stylesheets: 3, images: 2 });
  });

  it('reads the whole body when the page marks no main content', () => {
    const plain = readPage('<title>T</title><p>One</p><footer>Two</footer>', 'http://x.example/');
    expect(plain.text).toBe('One\nTwo');
    expect(plain.description).toBe('');
    expect(readPage('<meta property="og:description" content="From OG">', 'http://x.example/').description).toBe('From OG');
  });

  it('builds broken markup as a browser would', () => {
    const broken = readPage('<p>One<p>Two <b>bold<i>both</b> after</i><div>Three', 'http://x.example/');
    expect(broken.text).toBe('One\nTwo boldboth after\nThree');
  });
});
