// Copies the member records keyed by e-mail alone (the `members` table, until
// 2026-11) into the records kept per account and address (`account_members`);
// members.ts says how a row is merged.
//   npm run migrate:members -- --stage prod --region eu-west-1
// Run it right after deploying the code that reads `account_members`. Safe on
// live tables and safe to run again (a second run changes nothing); a row it
// could not write is named on stderr and makes it exit 1. The old
// table is retained by the stack; delete it by hand once the copy is checked.
// The local stage talks to `npm start`'s DynamoDB.
import '../stage-env.ts';
import { migrateMembers } from './members.ts';
import { mergeMembershipRecords } from '../../lib/webhooks/membership-state.ts';
import { exitWithUsage, readCommandLine, LOCAL_STACK, requireLocalStack } from '../command-line.ts';
import { stageDynamo } from '../stage-dynamo.ts';

const USAGE = `Usage: npm run migrate:members -- [--stage <stage>] [--region <region>] [--page-size <n>]

Copies the member records keyed by e-mail alone (table members) into the records kept per
account and address (account_members). Safe on live tables and safe to run again.

  --stage <stage>      local (default: the local stack, npm start) or a deployed stage (your AWS credentials)
  --region <region>    AWS region (default: eu-west-1)
  --page-size <n>      rows read per page (default: 100)
  -h, --help           this help`;
const values = readCommandLine({
  usage: USAGE,
  options: {
    stage: { type: 'string', default: 'local' },
    region: { type: 'string', default: 'eu-west-1' },
    'page-size': { type: 'string', default: '100' },
  },
});
if (!/^[1-9][0-9]*$/.test(values['page-size'])) exitWithUsage(`--page-size: '${values['page-size']}' is no whole number above 0`, USAGE);
const stage = values.stage;
if (stage === 'local') await requireLocalStack({ DynamoDB: process.env.AWS_ENDPOINT_URL_DYNAMODB ?? LOCAL_STACK.dynamodb }, 'npm run migrate:members');
const { db, prefix, tables } = stageDynamo(stage, values.region);
const from = `${prefix}members`;
const to = tables.account_members;
const counts = await migrateMembers(
  db,
  { from, to },
  mergeMembershipRecords,
  {
    pageSize: Number(values['page-size']),
    onPage: (c) => console.error(`so far: ${JSON.stringify(c)}`),
    onFailure: (row, error) => console.error(`not copied: ${JSON.stringify({ account_id: row.account_id, email: row.email })}: ${error instanceof Error ? error.message : String(error)}`),
  },
);
console.log(JSON.stringify({ stage, from, to, ...counts }));
process.exitCode = counts.failed ? 1 : 0;
