import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stack } from '../support/http.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** Every bundle of the running stack, with the time it was last written. */
function bundleTimes(): Map<string, number> {
  const build = join(ROOT, stack().workFolder, '.build');
  const times = new Map<string, number>();
  for (const entry of readdirSync(build, { recursive: true, encoding: 'utf8' })) {
    if (entry.endsWith('.mjs')) times.set(entry, statSync(join(build, entry)).mtimeMs);
  }
  return times;
}

describe('the local stack', () => {
  // serverless-esbuild's default watched every .ts file of the service: the tests' and the bench's own entries
  // under .local set off a rebuild of every function in every running stack (7-15 GB, a core, a hung bench).
  it('does not rebuild its functions when a source file is written beside it (only `npm start -- --watch` does)', async () => {
    const before = bundleTimes();
    expect(before.size).toBeGreaterThan(40);
    const folder = join(ROOT, '.local', `rebuild-probe-${process.pid}`);
    mkdirSync(folder, { recursive: true });
    try {
      writeFileSync(join(folder, 'entry.ts'), 'export const handler = async () => ({ statusCode: 204 });\n');
      writeFileSync(join(folder, 'entry.js'), 'export const handler = async () => ({ statusCode: 204 });\n');
      // Without the fix a rebuild wrote its first bundles about 20 s after the write (seen on this 2-core machine).
      const deadline = Date.now() + 40_000;
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        const rewritten = [...bundleTimes()].filter(([file, time]) => before.get(file) !== time).map(([file]) => file);
        expect(rewritten).toEqual([]);
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
