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
import { parseArgs } from 'node:util';
import { migrateMembers } from './members.ts';
import { mergeMembershipRecords } from '../../lib/webhooks/membership-state.ts';
import { stageDynamo } from '../stage-dynamo.ts';

const USAGE = `Usage: npm run migrate:members -- [--stage local] [--region eu-west-1] [--page-size 100]`;
const { values } = parseArgs({
  options: {
    stage: { type: 'string', default: 'local' },
    region: { type: 'string', default: 'eu-west-1' },
    'page-size': { type: 'string', default: '100' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const stage = values.stage!;
const { db, prefix, tables } = stageDynamo(stage, values.region!);
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
