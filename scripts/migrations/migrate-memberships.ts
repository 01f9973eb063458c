// Turns the member records of before memberships into memberships and
// invitations (memberships.ts says what becomes what).
//   npm run migrate:memberships -- --stage prod --region eu-west-1 [--send-invitations]
// Safe on a live table, and resumable: it saves its position after each page
// in --checkpoint (default .local/migrate-memberships-<stage>.json) and goes
// on from there when run again; running it again from the start changes nothing.
// Reads SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY (to find which user holds
// each creator's address); with --send-invitations also RESEND_API_KEY,
// EMAIL_FROM and PORTAL_URL (without it, invitations wait unsent for the
// person to sign in, where `me` lists them). The local stage talks to
// `npm start`'s DynamoDB and Auth emulator with their local keys. It reads
// the per-account member records: on a stage still holding them in the
// e-mail-keyed `members` table, run `npm run migrate:members` first.
import '../stage-env.ts';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { dynamodbAccounts } from '../../lib/accounts/dynamodb-accounts.ts';
import { dynamodbInvitations } from '../../lib/accounts/dynamodb-invitations.ts';
import { dynamodbMemberships } from '../../lib/accounts/dynamodb-memberships.ts';
import { migrateMemberships, type Checkpoint, type LegacyMemberRecord, type RecordPages } from './memberships.ts';
import { confirmedUserIdsByEmail } from '../../lib/identity/supabase-user-directory.ts';
import { policyFrom } from '../../lib/integrations/http-client.ts';
import { resendMailer } from '../../lib/integrations/resend-mailer.ts';
import { logger } from '../../lib/log.ts';
import { SUPABASE_SERVICE_ROLE_KEY } from '../../local/emulators/supabase.ts';
import { exitWithUsage, readCommandLine, LOCAL_STACK, requireLocalStack } from '../command-line.ts';
import { stageDynamo } from '../stage-dynamo.ts';

const USAGE = `Usage: npm run migrate:memberships -- [--stage <stage>] [--region <region>] [--checkpoint <file>] [--send-invitations] [--page-size <n>]

Turns the member records of before memberships into memberships and invitations. Safe on a
live table, and resumable from its checkpoint. Reads SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY
(on the local stage, the local stack's); with --send-invitations also RESEND_API_KEY, EMAIL_FROM
and PORTAL_URL.

  --stage <stage>       local (default: the local stack, npm start) or a deployed stage (your AWS credentials)
  --region <region>     AWS region (default: eu-west-1)
  --checkpoint <file>   where its position is kept (default: .local/migrate-memberships-<stage>.json)
  --send-invitations    e-mail the invitations it makes (without it, they wait for the person to sign in)
  --page-size <n>       rows read per page (default: 100)
  -h, --help            this help`;
const values = readCommandLine({
  usage: USAGE,
  options: {
    stage: { type: 'string', default: 'local' },
    region: { type: 'string', default: 'eu-west-1' },
    checkpoint: { type: 'string' },
    'send-invitations': { type: 'boolean', default: false },
    'page-size': { type: 'string', default: '100' },
  },
});

if (!/^[1-9][0-9]*$/.test(values['page-size'])) exitWithUsage(`--page-size: '${values['page-size']}' is no whole number above 0`, USAGE);
const stage = values.stage;
const local = stage === 'local';
const env = (name: string, localValue?: string) => {
  const value = process.env[name] ?? (local ? localValue : undefined);
  if (!value) exitWithUsage(`${name} is required on stage ${stage}`, USAGE);
  return value;
};

if (local) {
  await requireLocalStack(
    { DynamoDB: process.env.AWS_ENDPOINT_URL_DYNAMODB ?? LOCAL_STACK.dynamodb, 'Supabase Auth emulator': process.env.SUPABASE_URL ?? LOCAL_STACK.auth },
    'npm run migrate:memberships',
  );
}
const { db, tables } = stageDynamo(stage, values.region);
const accounts = dynamodbAccounts({ db, tables });
const memberships = dynamodbMemberships({ db, tables });
const policy = policyFrom({ timeoutMs: 8000, maxAttempts: 4, maxRetryWaitMs: 10_000 });
const mailer = values['send-invitations']
  ? resendMailer({ apiKey: env('RESEND_API_KEY'), baseUrl: process.env.RESEND_BASE_URL ?? 'https://api.resend.com', from: env('EMAIL_FROM') }, policy)
  : null;

const pageSize = Number(values['page-size']);
const pages: RecordPages = {
  async page(after) {
    const res = await db.send(new ScanCommand({ TableName: tables.account_members, ExclusiveStartKey: after, Limit: pageSize, ConsistentRead: true }));
    return { rows: (res.Items ?? []) as LegacyMemberRecord[], next: res.LastEvaluatedKey };
  },
};
const checkpointFile = values.checkpoint ?? `.local/migrate-memberships-${stage}.json`;
const checkpoint: Checkpoint = {
  async load() {
    try {
      return JSON.parse(readFileSync(checkpointFile, 'utf8'));
    } catch {
      return undefined;
    }
  },
  async save(state) {
    mkdirSync(dirname(checkpointFile), { recursive: true });
    writeFileSync(checkpointFile, JSON.stringify(state));
  },
};

const confirmedUserIds = await confirmedUserIdsByEmail({
  url: env('SUPABASE_URL', LOCAL_STACK.auth),
  serviceRoleKey: env('SUPABASE_SERVICE_ROLE_KEY', SUPABASE_SERVICE_ROLE_KEY),
});
const counts = await migrateMemberships(
  {
    accounts,
    memberships,
    team: { accounts, memberships, invitations: dynamodbInvitations({ db, tables }), mailer, portalUrl: process.env.PORTAL_URL ?? (local ? 'http://localhost:3001' : '') },
    confirmedUserIds,
    log: logger,
  },
  pages,
  checkpoint,
);
console.log(JSON.stringify({ stage, checkpoint: checkpointFile, ...counts }));
