// The shell blocks of the guides, as the guides test reads them (the convention
// is written out in docs/testing.md, "The guides run as written"):
//   ```sh                    a walk-through, run in a shell of its own
//   ```sh continues          run in the same shell, after the block before it in its file
//   ```sh skip: <reason>     for another machine (a deployment, AWS, npm install itself): listed as skipped
// Inside a block, each command is run as typed; a `# → [eventually] [status] [answer]`
// line after a command shows the answer it gets (expected-answers.ts).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseExpectation, type Expectation } from './expected-answers.ts';

/** The guides, in reading order: the README, the docs in alphabetical order, then the typed client's README. */
export function guideFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs, 'lib/api-client/README.md'];
}

export interface Step {
  /** The command as written (one or more lines). */
  command: string;
  /** Its first line's number in the file. */
  line: number;
  /** The answers shown after it. */
  expectations: Expectation[];
}

export interface Block {
  file: string;
  /** The line of its opening fence. */
  line: number;
  /** The heading it is under. */
  heading: string;
  kind: 'run' | 'continues' | 'skip';
  skipReason?: string;
  steps: Step[];
  /** The block's lines, for the checks that read its names. */
  text: string;
}

/** A walk-through: a block and the blocks that continue it, run in one shell. */
export interface Walkthrough {
  name: string;
  blocks: Block[];
  skipReason?: string;
}

/** A fence the guides test cannot read as the convention says, with where it is. */
export class GuideFormatError extends Error {}

const FENCE = /^( {0,3})(`{3,}|~{3,})\s*(.*)$/;
const SHELL_LANGUAGES = new Set(['bash', 'shell', 'console', 'zsh', 'shell-session', 'sh-session']);

export function readBlocks(file: string, markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const headingMatch = /^#{1,6}\s+(.*)$/.exec(lines[i]!);
    if (headingMatch) heading = headingMatch[1]!.trim();
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, info] = open as unknown as [string, string, string, string];
    const where = `${file}:${i + 1}`;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = FENCE.exec(lines[j]!);
      if (close && close[2]![0] === fence[0] && close[2]!.length >= fence.length && close[3]!.trim() === '') break;
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!);
    }
    if (j === lines.length) throw new GuideFormatError(`${where}: a fence that is never closed`);
    const start = i + 1;
    i = j;
    const [language = '', ...rest] = info.trim().split(/\s+/);
    const attribute = rest.join(' ');
    if (!language) {
      throw new GuideFormatError(`${where}: a fence with no language; write \`\`\`sh for commands the guides test runs, or \`\`\`text (json, ts, ...) for anything else`);
    }
    if (SHELL_LANGUAGES.has(language)) throw new GuideFormatError(`${where}: write \`\`\`sh for shell commands, not \`\`\`${language}, so that the guides test finds them`);
    if (language !== 'sh') continue;
    let kind: Block['kind'] = 'run';
    let skipReason: string | undefined;
    if (attribute === 'continues') kind = 'continues';
    else if (/^skip:\s*\S/.test(attribute)) {
      kind = 'skip';
      skipReason = attribute.replace(/^skip:\s*/, '');
    } else if (attribute) {
      throw new GuideFormatError(`${where}: \`\`\`sh takes "continues" or "skip: <reason>", not "${attribute}"`);
    }
    const text = body.join('\n');
    blocks.push({ file, line: start, heading, kind, skipReason, text, steps: kind === 'skip' ? [] : readSteps(file, start + 1, body) });
  }
  return blocks;
}

/**
 * Splits a block into commands as a shell reads them: a command ends where bash finds it complete
 * (`bash -n`), so a line ending in `\`, an open quote or an open `$(` carries on to the next line.
 */
export function readSteps(file: string, firstLine: number, lines: string[]): Step[] {
  const steps: Step[] = [];
  let pending: string[] = [];
  let pendingLine = 0;
  lines.forEach((text, index) => {
    const line = firstLine + index;
    if (!pending.length) {
      const expectation = /^\s*#\s*→/.test(text);
      if (expectation) {
        const last = steps.at(-1);
        if (!last) throw new GuideFormatError(`${file}:${line}: an expected answer (# →) with no command before it`);
        last.expectations.push(parseExpectation(text, `${file}:${line}`));
        return;
      }
      if (/^\s*(#.*)?$/.test(text)) return;
      pendingLine = line;
    }
    pending.push(text);
    if (isComplete(pending.join('\n'))) {
      steps.push({ command: pending.join('\n'), line: pendingLine, expectations: [] });
      pending = [];
    }
  });
  if (pending.length) throw new GuideFormatError(`${file}:${pendingLine}: a command that does not end (an open quote, \`\\\` or \`$(\`)`);
  return steps;
}

function isComplete(command: string): boolean {
  if (/\\$/.test(command)) return false;
  const check = spawnSync('bash', ['-n'], { input: command, encoding: 'utf8' });
  return !/unexpected end of file|unexpected EOF/.test(check.stderr);
}

/** Groups the blocks of the guides into walk-throughs, in reading order. */
export function walkthroughs(blocks: Block[]): Walkthrough[] {
  const result: Walkthrough[] = [];
  for (const block of blocks) {
    const where = `${block.file}:${block.line}`;
    if (block.kind === 'continues') {
      const previous = result.at(-1);
      if (!previous || previous.blocks[0]!.file !== block.file) throw new GuideFormatError(`${where}: \`\`\`sh continues, but no earlier \`\`\`sh block in ${block.file}`);
      if (previous.skipReason) throw new GuideFormatError(`${where}: \`\`\`sh continues a skipped block; skip it too (with its reason)`);
      previous.blocks.push(block);
      continue;
    }
    const title = block.heading ? ` (${block.heading})` : '';
    result.push({ name: `${where}${title}`, blocks: [block], skipReason: block.skipReason });
  }
  return result;
}

export function readGuides(root: string): Walkthrough[] {
  return walkthroughs(guideFiles(root).flatMap((file) => readBlocks(file, readFileSync(join(root, file), 'utf8'))));
}

/**
 * The names a walk-through makes things under: e-mail addresses and company names. Two walk-throughs
 * sharing one would find each other's account, run or slug, and then depend on the order they run in.
 */
export function namesOf(walkthrough: Walkthrough): Set<string> {
  const names = new Set<string>();
  for (const block of walkthrough.blocks) {
    for (const [address] of block.text.matchAll(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g)) names.add(address.toLowerCase());
    for (const [, , company] of block.text.matchAll(/"(companyName|company_name|company|businessName)"\s*:\s*"([^"]+)"/g)) {
      names.add(`company "${company}"`);
    }
  }
  return names;
}
