// Rate-limit windows in the rate_limits table, one item per rule and subject:
//   { key, hits, window_started_at, expires_at }   (epoch seconds)
// Every change is one conditional write, so the limit is exact under any
// concurrency: a hit is counted by `ADD hits 1` only while the window is open
// and has room, and a new window is opened only where none is open. Expiry is
// decided here, by comparing expires_at with the clock; DynamoDB's TTL (which
// dynalite lacks) only clears old items away.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { applied, isConditionFailure, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import type { RateDecision, RateLimiter, RateLimitRule } from './rate-limiter.ts';

interface Deps {
  db: DynamoDBDocumentClient;
  tables: Pick<Tables, 'rate_limits'>;
  now?: () => Date;
}

interface WindowItem {
  key: string;
  hits: number;
  window_started_at: number;
  expires_at: number;
}

// Each round either counts the hit or sees another request change the window;
// only a window that expires in the middle of a round needs a second one.
const MAX_ROUNDS = 4;

export function dynamodbRateLimiter({ db, tables, now = () => new Date() }: Deps): RateLimiter {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/rate_limits:GetItem,PutItem,UpdateItem';
  const TableName = tables.rate_limits;

  /** The window's hits after counting this one, or undefined when no window is open or it is full. */
  const countInOpenWindow = async (key: string, rule: RateLimitRule, at: number): Promise<number | undefined> => {
    try {
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName,
          Key: { key },
          UpdateExpression: 'ADD hits :one',
          ConditionExpression: 'expires_at > :now AND hits < :limit',
          ExpressionAttributeValues: { ':one': 1, ':now': at, ':limit': rule.limit },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(Attributes?.hits);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  };
  const openWindowOf = async (key: string, at: number) => {
    const item = (await db.send(new GetCommand({ TableName, Key: { key }, ConsistentRead: true }))).Item as WindowItem | undefined;
    return item && item.expires_at > at ? item : undefined;
  };

  const openWindow = async (key: string, rule: RateLimitRule, at: number) => {
    return applied(
      db.send(
        new PutCommand({
          TableName,
          Item: { key, hits: 1, window_started_at: at, expires_at: at + rule.windowSeconds } satisfies WindowItem,
          ConditionExpression: 'attribute_not_exists(#key) OR expires_at <= :now',
          ExpressionAttributeNames: { '#key': 'key' },
          ExpressionAttributeValues: { ':now': at },
        }),
      ),
    );
  };

  return {
    async hit(rule, subject): Promise<RateDecision> {
      if (rule.limit <= 0) return { allowed: false, retryAfterSeconds: rule.windowSeconds };
      const key = storageKey(rule, subject);
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const at = Math.floor(now().getTime() / 1000);
        const hits = await countInOpenWindow(key, rule, at);
        if (hits !== undefined) return { allowed: true, retryAfterSeconds: 0, remaining: rule.limit - hits };
        if (await openWindow(key, rule, at)) return { allowed: true, retryAfterSeconds: 0, remaining: rule.limit - 1 };
        // Both refused: the open window is full, or another request just opened one.
        const item = await openWindowOf(key, at);
        if (item && item.hits >= rule.limit) return { allowed: false, retryAfterSeconds: Math.max(1, item.expires_at - at) };
      }
      // Endless contention on one key is itself a sign of abuse: refuse rather than guess.
      return { allowed: false, retryAfterSeconds: 1 };
    },

    async peek(rule, subject): Promise<RateDecision> {
      if (rule.limit <= 0) return { allowed: false, retryAfterSeconds: rule.windowSeconds };
      const at = Math.floor(now().getTime() / 1000);
      const item = await openWindowOf(storageKey(rule, subject), at);
      if (item && item.hits >= rule.limit) return { allowed: false, retryAfterSeconds: Math.max(1, item.expires_at - at) };
      return { allowed: true, retryAfterSeconds: 0, remaining: rule.limit - (item?.hits ?? 0) };
    },
  };
}

/** The subject (an IP, an e-mail address) is stored only as a hash. */
function storageKey(rule: RateLimitRule, subject: string): string {
  return `${rule.name}#${createHash('sha256').update(subject).digest('hex')}`;
}
