// Runs a walk-through of the guides against a local stack and holds each
// command to the answers the guide shows (docs/testing.md, "The guides run as
// written"). A failure names the file, the line, the command and what it got.
import { differences, printedLine, type Expectation } from './expected-answers.ts';
import type { Step, Walkthrough } from './guide-blocks.ts';
import { GuideShell, type Answer, type CommandResult } from './guide-shell.ts';

/** The fixed ports the guides are written for (npm start's), and the test stack's in their place. */
export type PortMap = [fixed: number, actual: number][];

export interface RunOptions {
  root: string;
  ports: PortMap;
  /** Added to the shell's environment: where `npm run executions` finds the stack. */
  env: Record<string, string>;
  /** How long one command may take. */
  commandTimeoutMs?: number;
  /** How long an `eventually` answer, or a 202's statusUrl, is waited for. */
  eventuallyMs?: number;
}

export class GuideFailure extends Error {}

export function rewritePorts(text: string, ports: PortMap): string {
  return ports.reduce((out, [fixed, actual]) => out.replace(new RegExp(`\\b(localhost|127\\.0\\.0\\.1):${fixed}\\b`, 'g'), `$1:${actual}`), text);
}

function rewriteShown(value: unknown, ports: PortMap): unknown {
  if (typeof value === 'string') return rewritePorts(value, ports);
  if (Array.isArray(value)) return value.map((v) => rewriteShown(v, ports));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewriteShown(v, ports)]));
  return value;
}

interface Ran {
  step: Step;
  result: CommandResult;
}

const clip = (text: string, max = 1500) => (text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text);

function describeAnswer(answer: Answer | undefined): string {
  if (!answer) return 'no HTTP answer';
  if (answer.curlExit) return `no answer (curl exit ${answer.curlExit})`;
  return `${answer.status} ${clip(answer.body.trim())}`;
}

function fail(ran: Ran, message: string): never {
  const { step, result } = ran;
  const output = [result.stdout.trim() && `output: ${clip(result.stdout.trim())}`, result.stderr.trim() && `stderr: ${clip(result.stderr.trim())}`]
    .filter(Boolean)
    .join('\n  ');
  throw new GuideFailure(`line ${step.line}: ${message}\n  $ ${step.command.replaceAll('\n', '\n    ')}${output ? `\n  ${output}` : ''}`);
}

export async function runWalkthrough(walkthrough: Walkthrough, options: RunOptions): Promise<void> {
  const shell = new GuideShell(options.root, options.env);
  const commandTimeoutMs = options.commandTimeoutMs ?? 180_000;
  const eventuallyMs = options.eventuallyMs ?? 60_000;
  const run = async (step: Step): Promise<Ran> => {
    let result: CommandResult;
    try {
      result = await shell.run(rewritePorts(step.command, options.ports), commandTimeoutMs);
    } catch (error) {
      throw new GuideFailure(`line ${step.line}: ${(error as Error).message}\n  $ ${step.command}`);
    }
    const ran = { step, result };
    if (result.exitCode !== 0) fail(ran, `exited with ${result.exitCode}; its last answer: ${describeAnswer(result.answers.at(-1))}`);
    const lost = result.answers.find((a) => a.curlExit !== 0);
    if (lost) fail(ran, `a curl got ${describeAnswer(lost)}`);
    return ran;
  };
  try {
    for (const block of walkthrough.blocks) {
      // The commands since the last answer shown: the one shown is the last answer among them.
      let segment: Ran[] = [];
      for (const step of block.steps) {
        segment.push(await run(step));
        if (!step.expectations.length) continue;
        let last = lastAnswer(segment);
        for (const shown of step.expectations.map((e) => ({ ...e, json: rewriteShown(e.json, options.ports), text: e.text && rewritePorts(e.text, options.ports) }))) {
          let problem = check(last, segment.at(-1)!.result.stdout, shown);
          if (problem && last?.answer.status === 202 && shown.status !== 202) {
            last = { ...last, answer: await followStatusUrl(last.answer, options.ports, eventuallyMs) };
            problem = check(last, segment.at(-1)!.result.stdout, shown);
          }
          const deadline = Date.now() + eventuallyMs;
          while (problem && shown.eventually && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 500));
            const again: Ran[] = [];
            for (const ran of segment) again.push(await run(ran.step));
            segment = again;
            last = lastAnswer(segment);
            problem = check(last, segment.at(-1)!.result.stdout, shown);
          }
          if (problem) fail(segment.at(-1)!, `${shown.where} shows ${showText(shown)}, but ${problem}`);
        }
        unshownErrors(segment, step.expectations.some((e) => e.status !== undefined) ? last : undefined);
        segment = [];
      }
      unshownErrors(segment, undefined);
    }
  } finally {
    shell.close();
  }
}

function showText(shown: Expectation): string {
  return [shown.eventually ? 'eventually' : '', shown.status ?? '', shown.json !== undefined ? JSON.stringify(shown.json) : shown.text ?? '']
    .filter((part) => part !== '')
    .join(' ');
}

function lastAnswer(segment: Ran[]): { ran: Ran; answer: Answer } | undefined {
  for (let i = segment.length - 1; i >= 0; i--) {
    const answer = segment[i]!.result.answers.at(-1);
    if (answer) return { ran: segment[i]!, answer };
  }
  return undefined;
}

/** What is wrong with the answer, or undefined when it is the one shown. */
function check(last: { answer: Answer } | undefined, stdout: string, shown: Expectation): string | undefined {
  if (shown.status !== undefined || shown.json !== undefined) {
    if (!last) return 'the commands got no HTTP answer';
    const { answer } = last;
    if (shown.status !== undefined && answer.status !== shown.status) return `got ${describeAnswer(answer)}`;
    if (shown.json !== undefined) {
      let body: unknown;
      try {
        body = JSON.parse(answer.body);
      } catch {
        return `got ${describeAnswer(answer)} (not JSON)`;
      }
      const diffs = differences(body, shown.json);
      if (diffs.length) return `got ${describeAnswer(answer)}\n  ${diffs.join('\n  ')}`;
    }
  }
  if (shown.text !== undefined && !printedLine(stdout, shown.text)) return `it printed no such line`;
  return undefined;
}

/** A 4xx or 5xx answer a guide does not show is a defect of the guide or the service. */
function unshownErrors(segment: Ran[], shown: { answer: Answer } | undefined): void {
  for (const ran of segment) {
    const error = ran.result.answers.find((a) => a.status >= 400 && a !== shown?.answer);
    if (error) fail(ran, `got ${describeAnswer(error)}, an error the guide does not show (show it with # → ${error.status} ...)`);
  }
}

/**
 * An onboarding that outlives its wait answers 202 with a statusUrl, which answers as the onboarding
 * would once the run ends (docs/api.md): followed as a reader would, with the request's credentials.
 */
async function followStatusUrl(answer: Answer, ports: PortMap, waitMs: number): Promise<Answer> {
  let statusUrl: string | undefined;
  try {
    statusUrl = JSON.parse(answer.body).statusUrl;
  } catch {}
  if (!statusUrl) return answer;
  const headers = Object.fromEntries(Object.entries(answer.requestHeaders).filter(([name]) => name === 'authorization' || name === 'x-api-key'));
  const deadline = Date.now() + waitMs;
  let current = answer;
  while (current.status === 202 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const res = await fetch(rewritePorts(statusUrl, ports), { headers });
    current = { ...answer, status: res.status, body: await res.text(), headers: '' };
  }
  return current;
}

