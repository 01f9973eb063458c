// What each step created at each vendor, per account: ids, paths, links, sent
// e-mails. A step consults it first, so a re-run or a redrive creates only
// what is missing, even where the vendor itself has no idempotency.
//
// Two runs of one account may overlap (a changed resubmission while the first
// run works, an enhanced onboarding beside onboarding-v2), so a miss is not
// enough to go ahead: the maker, a run, first claims the entry with a
// conditional write, and only the claimant calls the vendor. The same run may
// always take its own claim again: a step retried or redriven after it died
// mid-way goes on at once (its vendor calls look before they create). Another
// run waits; a claim whose run stopped altogether lapses after its lease.
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { VendorError } from '../errors.ts';
import { applied, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';

export interface Ledger {
  /** What was made, once it was. */
  get<T = Record<string, unknown>>(accountId: string, resource: string): Promise<T | undefined>;
  /** Records what was made (and ends any claim on it). */
  put(accountId: string, resource: string, value: Record<string, unknown>): Promise<void>;
  /** Takes the right to make it: false once it is made, or while another maker's lease lasts. */
  claim(accountId: string, resource: string, maker: string, leaseMs: number): Promise<boolean>;
  /** Gives a claim back (the making failed), so the next attempt may claim it at once. */
  release(accountId: string, resource: string, maker: string): Promise<void>;
}

export interface RememberOptions {
  /** How long a claim holds against a maker that died: the longest a step Lambda runs. */
  leaseMs?: number;
  /** How long to wait for another maker before failing transiently (the state machine retries). */
  waitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const LEASE_MS = 300_000;
const WAIT_MS = 10_000;
const PAUSE_MS = 250;

/** One thing made for an account, and the run (execution, job) making it. */
export interface Entry {
  accountId: string;
  resource: string;
  maker: string;
}

/** Reads the ledger; on a miss, claims the entry, makes the thing and records it. */
export async function remembered<T extends Record<string, unknown>>(
  ledger: Ledger,
  { accountId, resource, maker }: Entry,
  make: () => Promise<T>,
  options: RememberOptions = {},
): Promise<T> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let waited = 0; ; waited += PAUSE_MS) {
    const known = await ledger.get<T>(accountId, resource);
    if (known) return known;
    if (await ledger.claim(accountId, resource, maker, options.leaseMs ?? LEASE_MS)) break;
    if (waited >= (options.waitMs ?? WAIT_MS)) {
      const vendor = resource.split('#')[0]!;
      throw new VendorError(vendor, `${vendor}: another run of this account is still making ${resource}`, { transient: true, operation: `make ${resource}` });
    }
    await sleep(PAUSE_MS);
  }
  let made: T;
  try {
    made = await make();
  } catch (error) {
    await ledger.release(accountId, resource, maker).catch(() => {});
    throw error;
  }
  await ledger.put(accountId, resource, made);
  return made;
}

export function dynamodbLedger(deps: { db: DynamoDBDocumentClient; tables: Pick<Tables, 'provisioning'>; now?: () => Date }): Ledger {
  const { db, tables } = deps;
  const now = deps.now ?? (() => new Date());
  const key = (accountId: string, resource: string) => ({ account_id: accountId, resource });
  return {
    async get(accountId, resource) {
      const res = await db.send(new GetCommand({ TableName: tables.provisioning, Key: key(accountId, resource), ConsistentRead: true }));
      return res.Item?.value;
    },
    async put(accountId, resource, value) {
      await db.send(new PutCommand({ TableName: tables.provisioning, Item: { ...key(accountId, resource), value, recorded_at: now().toISOString() } }));
    },
    async claim(accountId, resource, maker, leaseMs) {
      const at = now().getTime();
      return applied(
        db.send(
          new PutCommand({
            TableName: tables.provisioning,
            Item: { ...key(accountId, resource), maker, lease_until: at + leaseMs },
            // Free, this maker's own, or claimed by a maker whose lease has lapsed; never once made.
            ConditionExpression: 'attribute_not_exists(account_id) OR (attribute_not_exists(#value) AND (maker = :maker OR lease_until < :now))',
            ExpressionAttributeNames: { '#value': 'value' },
            ExpressionAttributeValues: { ':now': at, ':maker': maker },
          }),
        ),
      );
    },
    async release(accountId, resource, maker) {
      await applied(
        db.send(
          new DeleteCommand({
            TableName: tables.provisioning,
            Key: key(accountId, resource),
            ConditionExpression: 'maker = :maker AND attribute_not_exists(#value)',
            ExpressionAttributeNames: { '#value': 'value' },
            ExpressionAttributeValues: { ':maker': maker },
          }),
        ),
      );
    },
  };
}
