// The command line of the project's commands (npm start, npm run bench, the
// migrations): -h/--help prints the usage; an unknown option or a bad value
// prints the usage and one line saying what is wrong, and exits 2, with no
// stack trace. Commands that work on the local stack check first that it is
// up, and say to run `npm start` when it is not.
import { connect } from 'node:net';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

export interface CommandSpec<O extends ParseArgsOptionsConfig> {
  /** The whole help text, starting "Usage: ...". */
  usage: string;
  /** The options besides -h/--help, which every command has. */
  options: O;
}

const HELP = { help: { type: 'boolean', short: 'h', default: false } } as const;

type Values<O extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<{ options: O & typeof HELP; strict: true; allowPositionals: false }>>['values'];

export type CommandLine<O extends ParseArgsOptionsConfig> =
  | { kind: 'help'; text: string }
  | { kind: 'error'; message: string; usage: string }
  | { kind: 'run'; values: Values<O> };

/** Reads `argv` against the command's options; never throws. */
export function parseCommandLine<O extends ParseArgsOptionsConfig>(spec: CommandSpec<O>, argv: string[]): CommandLine<O> {
  try {
    const { values } = parseArgs({ args: argv, options: { ...spec.options, ...HELP }, strict: true, allowPositionals: false }) as { values: Record<string, unknown> };
    if (values.help) return { kind: 'help', text: spec.usage };
    return { kind: 'run', values: values as Values<O> };
  } catch (error) {
    // parseArgs says e.g. "Unknown option '--foo'. To specify a positional argument starting with a '-', ..."; the advice does not apply.
    return { kind: 'error', message: (error as Error).message.split('. ')[0]!.replace(/\.$/, ''), usage: spec.usage };
  }
}

/** Prints the usage, then what is wrong with the command line as its last line, and exits 2. */
export function exitWithUsage(message: string, usage: string): never {
  console.error(`${usage}\n\n${message}`);
  process.exit(2);
}

/** The options of this process's command line: help and errors are answered here, and the process ends. */
export function readCommandLine<O extends ParseArgsOptionsConfig>(spec: CommandSpec<O>, argv = process.argv.slice(2)): Values<O> {
  const line = parseCommandLine(spec, argv);
  if (line.kind === 'help') {
    console.log(line.text);
    process.exit(0);
  }
  if (line.kind === 'error') exitWithUsage(line.message, line.usage);
  return line.values;
}

/** Where `npm start` serves what the operators' commands use (local/stack.ts, DEFAULT_PORTS). */
export const LOCAL_STACK = { dynamodb: 'http://127.0.0.1:8000', stepFunctions: 'http://127.0.0.1:8083', auth: 'http://localhost:10001' };

/** Whether something accepts connections at this URL's host and port (within a second). */
export function answers(url: string): Promise<boolean> {
  const { hostname, port, protocol } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || (protocol === 'https:' ? 443 : 80)), timeout: 1000 });
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/**
 * The local stack's parts a command needs, by name and URL: when one does not answer, says so and to
 * run `npm start` first, and exits 1.
 */
export async function requireLocalStack(parts: Record<string, string>, command: string): Promise<void> {
  for (const [name, url] of Object.entries(parts)) {
    if (await answers(url)) continue;
    console.error(`The local stack is not running: nothing answers at ${url} (${name}).\nStart it with \`npm start\` in another terminal, then run ${command} again.`);
    process.exit(1);
  }
}
