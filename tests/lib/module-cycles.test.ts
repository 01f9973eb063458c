// The capability folders under lib/ depend on each other in one direction
// only: a cycle (onboarding importing the crawler while the crawler imports
// onboarding) means neither can be read, changed or moved without the other.
// Every import counts, type-only ones too: they couple the code just the same.
// lib/wiring, the one composition root, is a module like the others: it may
// import any capability, and nothing else in lib/ imports it, so it sits at the
// top of the graph. The function files take what they are given from it.
// A regex over the sources is enough here, because every import in lib/ is
// a static `import … from '…'`, `export … from '…'` or `import('…')`.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/** From module to module, each with the file imports that make the edge. */
type Graph = Map<string, Map<string, string[]>>;

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;
const COMMENTS = /\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The module a file belongs to: its folder under root, or the file itself for root-level files (config.ts, errors.ts). */
const moduleOf = (root: string, file: string) => relative(root, file).split(sep)[0]!;

/** Where the capabilities are put together into the functions' deps. */
const WIRING = join('lib', 'wiring');
const inWiring = (file: string) => file.startsWith(`${WIRING}${sep}`);

/** Each relative import of a source file, resolved to the file it names. */
const importsOf = (file: string, text: string) =>
  [...text.replace(COMMENTS, '').matchAll(SPECIFIER)].map(([, specifier]) => specifier!).filter((s) => s.startsWith('.')).map((s) => normalize(join(dirname(file), s)));

function moduleGraph(root: string, files: Record<string, string>): Graph {
  const graph: Graph = new Map();
  for (const [file, text] of Object.entries(files)) {
    const from = moduleOf(root, file);
    for (const [, specifier] of text.replace(COMMENTS, '').matchAll(SPECIFIER)) {
      if (!specifier!.startsWith('.')) continue;
      const target = normalize(join(dirname(file), specifier!));
      if (relative(root, target).startsWith('..')) continue;
      const to = moduleOf(root, target);
      if (to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      graph.set(from, edges.set(to, [...(edges.get(to) ?? []), `${file} imports ${target}`]));
    }
  }
  return graph;
}

/** Each group of modules that depend on each other (Tarjan), with one cycle through it, each hop with the imports that make it. */
function cyclesOf(graph: Graph): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      for (let member = ''; member !== node; ) group.push((member = stack.pop()!));
      if (group.length > 1) groups.push(group);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);

  return groups.map((group) => {
    const members = [...group].sort();
    const path = pathBack(graph, new Set(group), members[0]!);
    const hops = path.slice(1).map((to, i) => `  ${path[i]} -> ${to}: ${graph.get(path[i]!)!.get(to)!.join('; ')}`);
    return [`${members.join(', ')} depend on each other, e.g. ${path.join(' -> ')}`, ...hops].join('\n');
  });
}

/** A shortest path from start back to start, inside the group. */
function pathBack(graph: Graph, group: Set<string>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!group.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  throw new Error(`no way back to ${start}`);
}

describe('imports between the capability folders of lib/', () => {
  it('finds and names a cycle, with the imports that make it', () => {
    const graph = moduleGraph('lib', {
      'lib/a/one.ts': "import { b } from '../b/two.ts';\nimport type { X } from './local.ts';",
      'lib/b/two.ts': "export { c } from '../c/three.ts';",
      'lib/c/three.ts': "import type { A } from '../a/one.ts';\n// import { d } from '../d/commented-out.ts';",
      'lib/d/four.ts': "const late = await import('../a/one.ts');\nimport { config } from '../config.ts';",
    });
    expect(cyclesOf(graph)).toEqual([
      [
        'a, b, c depend on each other, e.g. a -> b -> c -> a',
        '  a -> b: lib/a/one.ts imports lib/b/two.ts',
        '  b -> c: lib/b/two.ts imports lib/c/three.ts',
        '  c -> a: lib/c/three.ts imports lib/a/one.ts',
      ].join('\n'),
    ]);
    expect([...graph.get('d')!.keys()]).toEqual(['a', 'config.ts']);
  });

  it('has none', () => {
    const files = Object.fromEntries(sourceFiles('lib').map((file) => [file, readFileSync(file, 'utf8')]));
    expect(Object.keys(files).length).toBeGreaterThan(100);
    expect(cyclesOf(moduleGraph('lib', files))).toEqual([]);
  });

  it('keeps the composition root at the top: nothing in lib/ but lib/wiring imports it', () => {
    const importers = sourceFiles('lib')
      .filter((file) => !inWiring(file))
      .flatMap((file) => importsOf(file, readFileSync(file, 'utf8')).filter(inWiring).map((target) => `${file} imports ${target}`));
    expect(sourceFiles(WIRING).length).toBeGreaterThan(3);
    expect(importers).toEqual([]);
  });
});

describe('the function files', () => {
  it('take their stores and adapters from lib/wiring, never building one themselves', () => {
    // A store or adapter module, or what makes the clients they use.
    const ADAPTER = /^lib\/(store\/|workflows\/step-functions\.ts$|.*\/(dynamodb|supabase|stripe|resend|clickup|dropbox|slack|close|firecrawl|pagespeed|sfn)-[^/]+\.ts$)/;
    const builders = sourceFiles('functions').flatMap((file) =>
      importsOf(file, readFileSync(file, 'utf8'))
        .filter((target) => ADAPTER.test(target.split(sep).join('/')))
        .map((target) => `${file} imports ${target}`),
    );
    expect(sourceFiles('functions').length).toBeGreaterThan(40);
    expect(builders).toEqual([]);
  });
});
