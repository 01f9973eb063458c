// Verification tokens in the verification_tokens table, keyed by token_hash.
// expires_at (epoch seconds) is checked in the consuming write itself;
// DynamoDB's TTL on it only clears old rows away.
// A user's links are voided by a row of its own in the same table, keyed
// links-void#<user id> (no SHA-256 hex, so never a token's key) with purpose
// 'void-links': "links issued up to void_before are void". consume takes only
// rows whose purpose is 'verify-email', so that row can never be spent as a token.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { applied, isConditionFailure, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import type { ConsumedVerification, VerificationTokenStore } from './verification-tokens.ts';

interface Row {
  token_hash: string;
  purpose: 'verify-email';
  user_id: string;
  email: string;
  company_name?: string;
  name?: string;
  created_at: string;
  expires_at: number;
  used_at?: string;
}

interface VoidRow {
  token_hash: string;
  purpose: 'void-links';
  user_id: string;
  /** Links of the user created at or before this time (ISO) are void. */
  void_before: string;
  expires_at: number;
}

const voidKey = (userId: string) => `links-void#${userId}`;

export function dynamodbVerificationTokens({ db, tables }: { db: DynamoDBDocumentClient; tables: Pick<Tables, 'verification_tokens'> }): VerificationTokenStore {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/verification_tokens:GetItem,PutItem,UpdateItem';
  const TableName = tables.verification_tokens;
  return {
    async save(record) {
      const row: Row = {
        token_hash: record.tokenHash,
        purpose: 'verify-email',
        user_id: record.userId,
        email: record.email,
        company_name: record.companyName,
        name: record.name,
        created_at: record.createdAt,
        expires_at: record.expiresAt,
      };
      await db.send(new PutCommand({ TableName, Item: row, ConditionExpression: 'attribute_not_exists(token_hash)' }));
    },

    async consume(tokenHash, now) {
      const usedAt = now.toISOString();
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName,
            Key: { token_hash: tokenHash },
            UpdateExpression: 'SET used_at = :usedAt',
            ConditionExpression: 'attribute_exists(token_hash) AND purpose = :purpose AND attribute_not_exists(used_at) AND expires_at > :now',
            ExpressionAttributeValues: { ':usedAt': usedAt, ':purpose': 'verify-email', ':now': Math.floor(now.getTime() / 1000) },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return fromRow(Attributes as Row, usedAt);
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },

    async restore(consumed) {
      await applied(
        db.send(
          new UpdateCommand({
            TableName,
            Key: { token_hash: consumed.tokenHash },
            UpdateExpression: 'REMOVE used_at',
            // Only the consumption this caller made: never revive a token someone else used.
            ConditionExpression: 'used_at = :usedAt',
            ExpressionAttributeValues: { ':usedAt': consumed.usedAt },
          }),
        ),
      );
    },

    async voidLinksOf(userId, at, until) {
      // Only forward: a voiding whose write arrives late must not revive links a later one voided
      // (when the condition fails, that later one is there and voids at least as much).
      await applied(
        db.send(
          new UpdateCommand({
            TableName,
            Key: { token_hash: voidKey(userId) },
            UpdateExpression: 'SET purpose = :purpose, user_id = :userId, void_before = :at, expires_at = :until',
            ConditionExpression: 'attribute_not_exists(token_hash) OR (purpose = :purpose AND void_before < :at)',
            ExpressionAttributeValues: { ':purpose': 'void-links', ':userId': userId, ':at': at.toISOString(), ':until': until },
          }),
        ),
      );
    },

    async isVoided({ userId, createdAt }) {
      const { Item } = await db.send(new GetCommand({ TableName, Key: { token_hash: voidKey(userId) }, ConsistentRead: true }));
      const row = Item as VoidRow | undefined;
      return row?.purpose === 'void-links' && createdAt <= row.void_before;
    },
  };
}

function fromRow(row: Row, usedAt: string): ConsumedVerification {
  return {
    tokenHash: row.token_hash,
    userId: row.user_id,
    email: row.email,
    ...(row.company_name ? { companyName: row.company_name } : {}),
    ...(row.name ? { name: row.name } : {}),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt,
  };
}
