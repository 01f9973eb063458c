// Membership writes to the account's member records. Only the attributes the
// membership service owns are written, under an optimistic version, so a
// concurrent onboarding step (status, storage link) is never overwritten with a
// stale copy.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { applied, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import type { MembershipMembers } from './membership-members.ts';
import type { MembershipMember } from './membership-state.ts';

export function dynamodbMembershipMembers(deps: { db: DynamoDBDocumentClient; tables: Pick<Tables, 'account_members'>; now?: () => Date }): MembershipMembers {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/account_members:GetItem,PutItem,UpdateItem';
  const { db } = deps;
  const TableName = deps.tables.account_members;
  const now = deps.now ?? (() => new Date());

  return {
    async get(accountId, email) {
      return (await db.send(new GetCommand({ TableName, Key: { account_id: accountId, email }, ConsistentRead: true }))).Item as MembershipMember | undefined;
    },

    async save(member, changes, create) {
      const at = now().toISOString();
      const version = (member.membership_version ?? 0) + 1;
      if (create) {
        return applied(
          db.send(
            new PutCommand({
              TableName,
              Item: { ...member, membership_version: version, created_at: at, updated_at: at },
              ConditionExpression: 'attribute_not_exists(email)',
            }),
          ),
        );
      }
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = { ':membership': member.membership, ':version': version, ':at': at };
      const sets = ['membership = :membership', 'membership_version = :version', 'updated_at = :at'];
      for (const [key, value] of Object.entries(changes)) {
        if (value === undefined) continue;
        names[`#${key}`] = key;
        values[`:${key}`] = value;
        sets.push(`#${key} = :${key}`);
      }
      let condition = 'attribute_exists(email) AND ';
      if (member.membership_version === undefined) condition += 'attribute_not_exists(membership_version)';
      else {
        condition += 'membership_version = :expected';
        values[':expected'] = member.membership_version;
      }
      return applied(
        db.send(
          new UpdateCommand({
            TableName,
            Key: { account_id: member.account_id, email: member.email },
            UpdateExpression: `SET ${sets.join(', ')}`,
            ConditionExpression: condition,
            ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
            ExpressionAttributeValues: values,
          }),
        ),
      );
    },

    async markOnboardingStarted(accountId, email, runId) {
      await db.send(
        new UpdateCommand({
          TableName,
          Key: { account_id: accountId, email },
          UpdateExpression: 'SET membership.onboarding_run = :run, membership_version = membership_version + :one, updated_at = :at',
          ConditionExpression: 'attribute_exists(membership)',
          ExpressionAttributeValues: { ':run': runId, ':one': 1, ':at': now().toISOString() },
        }),
      );
    },
  };
}
