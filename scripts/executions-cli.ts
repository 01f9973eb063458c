// The command line of `npm run executions` (scripts/executions.ts): its
// options, its help, and the follow-up view. Pure, so tests can read them
// without a stack; the script does the calls.
import { parseArgs } from 'node:util';
import { integrations, type IntegrationSpec } from '../lib/provisioning/registry.ts';
import { stateMachines } from '../statemachines/cloudformation.ts';

/** Every state machine of the service, as deployed (agency-backend-<stage>-<machine>). */
export const MACHINES = Object.keys(stateMachines);
const STATUSES = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED', 'PENDING_REDRIVE'];

export interface Options {
  stage: string;
  region: string;
  machine: string;
  status?: string;
}

export type CommandLine =
  | { kind: 'help'; text: string }
  | { kind: 'error'; message: string; usage: string }
  | { kind: 'run'; command: Command; id?: string; options: Options };

type Command = 'list' | 'show' | 'redrive' | 'follow-ups';

const COMMON = `Options for every command:
  --stage <stage>      local (default: the local stack, npm start) or a deployed stage (your AWS credentials)
  --region <region>    AWS region (default: eu-west-1)
  -h, --help           this help`;

const MACHINE = `  --machine <machine>  ${MACHINES.join(', ')} (default: onboarding)`;

const HELP: Record<Command, string> = {
  list: `Usage: npm run executions -- list [--status <status>] [--machine <machine>] [--stage <stage>] [--region <region>]

Lists the newest 50 executions of a state machine, newest first.

  --status <status>    only executions in this status: ${STATUSES.join(', ')}
${MACHINE}

${COMMON}`,
  show: `Usage: npm run executions -- show <name|arn> [--machine <machine>] [--stage <stage>] [--region <region>]

Shows an execution: its status, redrives, error, and every failed Lambda call.
An onboarding execution's name is its run id (the executionId a client got).

${MACHINE}

${COMMON}`,
  redrive: `Usage: npm run executions -- redrive <name|arn> [--machine <machine>] [--stage <stage>] [--region <region>]

Redrives a FAILED, TIMED_OUT or ABORTED execution once its cause is fixed: it resumes
at the state that did not finish and re-runs only what did not succeed. Waits for it
to end, then shows it.

${MACHINE}

${COMMON}`,
  'follow-ups': `Usage: npm run executions -- follow-ups [--stage <stage>] [--region <region>]

Lists what waits for an operator, newest first: onboarding integrations that failed
and billing conflicts. For each: what failed, for which account, what to do, and the
command that redrives its run (when the run can be redriven).

${COMMON}`,
};

const GENERAL = `Usage: npm run executions -- <command> [options]

Operators' view of the state machines' executions, on the local stack or on AWS.

Commands:
  list          the newest executions of a state machine
  show          one execution: status, error, failed Lambda calls
  redrive       re-run what did not succeed in a failed execution, and wait for it
  follow-ups    what waits for an operator, with what to do and the redrive command

Run npm run executions -- <command> --help for a command's options.

${COMMON}`;

export const helpOf = (command?: string): string => (command && command in HELP ? HELP[command as Command] : GENERAL);

const isCommand = (c: string | undefined): c is Command => c !== undefined && c in HELP;

/** Reads the arguments after `npm run executions --`. Never throws: bad input is an error to print with the usage it concerns. */
export function parseCommandLine(argv: string[]): CommandLine {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        stage: { type: 'string', default: 'local' },
        region: { type: 'string', default: 'eu-west-1' },
        status: { type: 'string' },
        machine: { type: 'string', default: 'onboarding' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    // parseArgs says e.g. "Unknown option '--foo'"; its advice about '--' does not apply here.
    const message = (error as Error).message.split('. ')[0]!.replace(/\.$/, '');
    return { kind: 'error', message, usage: helpOf(argv.find((a) => !a.startsWith('-'))) };
  }
  const { values, positionals } = parsed;
  const [first, second, ...rest] = positionals;
  if (first === 'help') return { kind: 'help', text: helpOf(second) };
  if (values.help) return { kind: 'help', text: helpOf(first) };
  if (first === undefined) return { kind: 'error', message: `No command given. Commands: ${Object.keys(HELP).join(', ')}`, usage: GENERAL };
  if (!isCommand(first)) return { kind: 'error', message: `Unknown command '${first}'. Commands: ${Object.keys(HELP).join(', ')}`, usage: GENERAL };
  const refuse = (message: string) => ({ kind: 'error' as const, message, usage: helpOf(first) });
  const takesId = first === 'show' || first === 'redrive';
  if (takesId && second === undefined) return refuse(`${first} needs an execution name or ARN`);
  const extra = takesId ? rest : [second, ...rest].filter((p) => p !== undefined);
  if (extra.length) return refuse(`Unexpected argument '${extra[0]}'`);
  if (!/^[a-z0-9-]{1,32}$/.test(values.stage!)) return refuse(`Invalid stage '${values.stage}' (lower-case letters, digits and dashes)`);
  if (!MACHINES.includes(values.machine!)) return refuse(`Unknown machine '${values.machine}': ${MACHINES.join(', ')}`);
  if (values.status !== undefined && !STATUSES.includes(values.status)) return refuse(`Unknown status '${values.status}': ${STATUSES.join(', ')}`);
  return {
    kind: 'run',
    command: first,
    id: takesId ? second : undefined,
    options: { stage: values.stage!, region: values.region!, machine: values.machine!, ...(values.status ? { status: values.status } : {}) },
  };
}

// --- The follow-up view ---

export interface OpenFollowUp {
  account_id: string;
  integration: string;
  message: string;
  context?: Record<string, unknown>;
  run_id: string;
  failures?: number;
  first_failed_at?: string;
  last_failed_at: string;
}

/** The run a follow-up names, as found on the state machines (undefined: not an execution, or not found). */
export interface RunOf {
  machine: string;
  executionArn: string;
  status: string;
  redrivable: boolean;
}

/** What an operator checks before redriving: each integration's remedy (its registry entry), and for billing conflicts. */
export function remedies(registry: Readonly<Record<string, Pick<IntegrationSpec, 'remedy' | 'takeBack'>>> = integrations): Record<string, string> {
  return {
    ...Object.fromEntries(Object.entries(registry).map(([key, spec]) => [key, spec.remedy])),
    // A take-back step's failure, in an offboarding run: its own remedy, under "<integration>@offboarding".
    ...Object.fromEntries(Object.entries(registry).flatMap(([key, spec]) => (spec.takeBack ? [[`${key}@offboarding`, spec.takeBack.remedy]] : []))),
    billing:
      'A paid checkout was not linked to the account (reason below: public-checkout, bought with its e-mail while it pays; starter-not-allowed, paid by someone ' +
      'no longer allowed to manage its billing): refund, cancel or link it in Stripe (ids below); nothing to redrive.',
  };
}

const when = (iso?: string) => (iso ? iso.replace('T', ' ').slice(0, 19) : '-');

/** One follow-up as the lines an operator acts on. */
export function describeFollowUp(f: OpenFollowUp, run: RunOf | undefined, options: Pick<Options, 'stage' | 'region'>, advice = remedies()): string[] {
  const failures = f.failures && f.failures > 1 ? `failed ${f.failures} times since ${when(f.first_failed_at)}, last ${when(f.last_failed_at)}` : `failed ${when(f.last_failed_at)}`;
  const lines = [`${f.integration} · account ${f.account_id} · ${failures}`, `  what failed: ${f.message}`];
  const context = Object.entries(f.context ?? {}).filter(([, v]) => v !== undefined && v !== null && v !== '');
  if (context.length) lines.push(`  details:     ${context.map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ')}`);
  const remedy = (run?.machine === 'offboarding' && advice[`${f.integration}@offboarding`]) || advice[f.integration];
  lines.push(`  what to do:  ${remedy ?? `Fix what the message names for ${f.integration}.`}`);
  const where = options.stage === 'local' ? '' : ` --stage ${options.stage} --region ${options.region}`;
  if (!run) {
    lines.push(f.integration === 'billing' ? `  found by:    ${f.run_id}` : `  run:         ${f.run_id} (no such execution on the workflows' machines)`);
  } else if (run.redrivable) {
    const machine = run.machine === 'onboarding' ? '' : ` --machine ${run.machine}`;
    lines.push(`  then redrive (run ${run.status}):`);
    lines.push(`    npm run executions -- redrive ${f.run_id}${machine}${where}`);
    lines.push(`    aws stepfunctions redrive-execution --execution-arn ${run.executionArn}${options.stage === 'local' ? ' --endpoint-url http://localhost:8083' : ''} --region ${options.region}`);
  } else if (run.status === 'RUNNING') {
    lines.push(`  run:         ${f.run_id} is RUNNING; look again when it ends`);
  } else {
    lines.push(`  run:         ${f.run_id} is ${run.status} and cannot be redriven; the account's next onboarding submission runs the integration again`);
  }
  return lines;
}
