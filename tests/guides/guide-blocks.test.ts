// How the guides test reads a guide (the unit project runs this; the guides project runs the guides).
import { describe, expect, it } from 'vitest';
import { differences, parseExpectation, printedLine } from './expected-answers.ts';
import { GuideFormatError, namesOf, readBlocks, walkthroughs } from './guide-blocks.ts';
import { rewritePorts } from './run-walkthrough.ts';

const guide = (...lines: string[]) => lines.join('\n');

describe('reading the shell blocks of a guide', () => {
  it('splits a block into commands as bash reads them, each with the answers shown after it', () => {
    const [block] = readBlocks(
      'g.md',
      guide('# Title', '```sh', 'A=1 \\', '  B=2', "curl -s x -d '{", "  \"a\":1}'", '# → eventually 201 {"a":"…"}', '# a comment', 'echo "$(', '  date)"', '```'),
    );
    expect(block!.steps.map((s) => [s.line, s.command])).toEqual([
      [3, 'A=1 \\\n  B=2'],
      [5, "curl -s x -d '{\n  \"a\":1}'"],
      [9, 'echo "$(\n  date)"'],
    ]);
    expect(block!.steps[1]!.expectations).toEqual([{ where: 'g.md:7', eventually: true, status: 201, json: { a: '…' } }]);
    expect(block!.heading).toBe('Title');
  });

  it('joins a block that continues to the walk-through before it, and lists a skipped one with its reason', () => {
    const blocks = readBlocks('g.md', guide('```sh', 'A=1', '```', '```text', 'not run', '```', '```sh continues', 'echo $A', '```', '```sh skip: on AWS', 'aws x', '```'));
    const [first, skipped] = walkthroughs(blocks);
    expect(first!.blocks.map((b) => b.line)).toEqual([1, 7]);
    expect(skipped).toMatchObject({ skipReason: 'on AWS', blocks: [{ steps: [] }] });
  });

  it('refuses what would let a command escape the test or run out of order', () => {
    expect(() => readBlocks('g.md', guide('```', 'npm start', '```'))).toThrow(GuideFormatError);
    expect(() => readBlocks('g.md', guide('```bash', 'npm start', '```'))).toThrow(/write ```sh/);
    expect(() => readBlocks('g.md', guide('```sh', 'echo "open', '```'))).toThrow(/does not end/);
    expect(() => readBlocks('g.md', guide('```sh', '# → 200', '```'))).toThrow(/no command before it/);
    expect(() => walkthroughs(readBlocks('g.md', guide('```sh continues', 'echo', '```')))).toThrow(/no earlier/);
  });

  it('names the addresses and companies a walk-through makes', () => {
    const [walkthrough] = walkthroughs(readBlocks('g.md', guide('```sh', `curl -d '{"email":"Ann@Shop.example","companyName":"Shop"}'`, '```')));
    expect([...namesOf(walkthrough!)]).toEqual(['ann@shop.example', 'company "Shop"']);
  });
});

describe('holding an answer to the one shown', () => {
  it('matches the fields shown, with … for any value or any text', () => {
    expect(differences({ a: 1, b: 'run-42', c: [1, 2, 3], d: null }, { a: 1, b: 'run-…', c: [1, '…'] })).toEqual([]);
    expect(differences({ a: 2 }, { a: 1 })).toEqual(['.a: 2, not 1']);
    expect(differences({ c: [1] }, { c: [1, 2] })).toHaveLength(1);
    expect(differences({}, { a: '…' })).toEqual(['.a: missing']);
    expect(differences({ b: 'x' }, { b: 'run-…' })).toHaveLength(1);
  });

  it('reads a status alone, a printed line, and refuses an answer that is not there', () => {
    expect(parseExpectation('# → 303', 'w')).toEqual({ where: 'w', eventually: false, status: 303 });
    expect(parseExpectation('# → location: http://x/…', 'w')).toMatchObject({ text: 'location: http://x/…' });
    expect(() => parseExpectation('# →', 'w')).toThrow(/no answer/);
    expect(() => parseExpectation('# → 200 {"a":', 'w')).toThrow(/not JSON/);
    expect(printedLine('a\n  location: http://x/pay/1\n', 'location: http://x/…')).toBe(true);
  });

  it("puts the test stack's ports in place of npm start's, only after a local host name", () => {
    expect(rewritePorts('curl localhost:10000/a http://127.0.0.1:8083 example.com:10000 localhost:100001', [[10000, 4100], [8083, 4200]])).toBe(
      'curl localhost:4100/a http://127.0.0.1:4200 example.com:10000 localhost:100001',
    );
  });
});
