// Comments in lib/ and functions/ say what the code does and why in a few
// lines; a longer rationale goes in a decision record (docs/decisions/).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const LONGEST = 12;

const sources = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });

/** Each comment of a file: a /* … *\/ block, or a run of // lines, with its first line and length. */
export function commentsOf(text: string): { line: number; lines: number }[] {
  const lines = text.split('\n');
  const found: { line: number; lines: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line.startsWith('/*')) {
      let end = i;
      while (end < lines.length - 1 && !lines[end]!.includes('*/')) end++;
      found.push({ line: i + 1, lines: end - i + 1 });
      i = end;
    } else if (line.startsWith('//')) {
      let end = i;
      while (end < lines.length - 1 && lines[end + 1]!.trim().startsWith('//')) end++;
      found.push({ line: i + 1, lines: end - i + 1 });
      i = end;
    }
  }
  return found;
}

it(`finds the comments of a file, blocks and runs of // lines`, () => {
  expect(commentsOf('// a\n// b\nconst x = 1;\n/**\n * c\n */\n')).toEqual([
    { line: 1, lines: 2 },
    { line: 4, lines: 3 },
  ]);
});

it(`has no comment in lib/ or functions/ longer than ${LONGEST} lines`, () => {
  const long = ['lib', 'functions'].flatMap((folder) =>
    sources(join(ROOT, folder)).flatMap((file) =>
      commentsOf(readFileSync(file, 'utf8'))
        .filter((c) => c.lines > LONGEST)
        .map((c) => `${relative(ROOT, file)}:${c.line} (${c.lines} lines)`),
    ),
  );
  expect(long).toEqual([]);
});
