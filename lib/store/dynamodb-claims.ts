// Claims (claims.ts) as attributes of a DynamoDB row, the same in every table:
//   holder       who holds it (kept after a 'once' claim finished: who did the work)
//   lease_until  when the holder's lease lapses (epoch ms)
//   value        what the finished work left
//   finished_at  when it was recorded (ISO); a 'once' claim is finished from then on
//   expires_at   when the row may be forgotten (epoch s, the TTL attribute)
// Acquiring is one UpdateItem that cannot fail (every attribute if_not_exists),
// whose ALL_NEW answer tells winner and losers alike where the claim stands.
// Only taking over a lapsed claim, or renewing one's own, writes again, by a
// compare-and-set on what that first call returned.
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { About, Acquired, ClaimPolicy, Claims } from './claims.ts';
import { applied, type DynamoDBDocumentClient } from './dynamodb.ts';

type Row = { holder?: string; lease_until?: number; value?: unknown; finished_at?: string; expires_at?: number };

/** A takeover that lost to another caller's looks again; the third loss answers 'held'. */
const MAX_ATTEMPTS = 3;

/** The claim's own attributes; those of `about` are named #a0… (values :a0…), so that any name may be used. */
const NAMES: Record<string, string> = { '#holder': 'holder', '#until': 'lease_until', '#value': 'value', '#finished': 'finished_at', '#expires': 'expires_at' };

interface Change {
  set: string[];
  remove?: string[];
  condition?: string;
  values: Record<string, unknown>;
  about?: About;
}

export function dynamodbClaims<K, V>(deps: {
  db: DynamoDBDocumentClient;
  tableName: string;
  /** The row's key in the table. */
  key: (key: K) => Record<string, string>;
  policy: ClaimPolicy;
  now?: () => Date;
}): Claims<K, V> {
  const { db, tableName: TableName, policy } = deps;
  const now = deps.now ?? (() => new Date());
  const once = policy.kind === 'once';
  const retained = policy.retentionMs !== undefined;
  /** The row's expiry counted from `ms`, as an expression value, under a retention. */
  const expiry = (ms: number): Record<string, number> => (retained ? { ':expires': Math.floor((ms + policy.retentionMs!) / 1000) } : {});
  const forgotten = (row: Row, at: number) => row.expires_at !== undefined && row.expires_at < Math.floor(at / 1000);
  const aboutNames = (about: About | undefined) => Object.keys(about ?? {}).map((_, i) => `#a${i}`);

  /** One UpdateItem answering the row as it is afterwards; DynamoDB refuses names and values an expression leaves unused, so only those used are sent. */
  const change = (key: K, { set, remove = [], condition, values, about }: Change) => {
    const UpdateExpression = [set.length ? `SET ${set.join(', ')}` : '', remove.length ? `REMOVE ${remove.join(', ')}` : ''].join(' ').trim();
    const aboutEntries = Object.entries(about ?? {});
    const names = { ...NAMES, ...Object.fromEntries(aboutEntries.map(([name], i) => [`#a${i}`, name])) };
    const used = new Set(`${UpdateExpression} ${condition ?? ''}`.match(/#\w+/g));
    return db.send(
      new UpdateCommand({
        TableName,
        Key: deps.key(key),
        UpdateExpression,
        ...(condition ? { ConditionExpression: condition } : {}),
        ExpressionAttributeNames: Object.fromEntries(Object.entries(names).filter(([name]) => used.has(name))),
        ExpressionAttributeValues: { ...values, ...Object.fromEntries(aboutEntries.map(([, value], i) => [`:a${i}`, value])) },
        ReturnValues: 'ALL_NEW',
      }),
    );
  };

  return {
    async acquire(key, holder, about) {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const at = now().getTime();
        const mine = { ':holder': holder, ':until': at + policy.leaseMs, ...expiry(at) };
        const row = (
          await change(key, {
            set: [
              '#holder = if_not_exists(#holder, :holder)',
              '#until = if_not_exists(#until, :until)',
              ...(retained ? ['#expires = if_not_exists(#expires, :expires)'] : []),
              ...aboutNames(about).map((name, i) => `${name} = if_not_exists(${name}, :a${i})`),
            ],
            values: mine,
            about,
          })
        ).Attributes as Row;

        const stale = forgotten(row, at);
        if (!stale) {
          if (once && row.finished_at !== undefined) return { state: 'finished', value: row.value as V };
          if (row.holder === holder && row.lease_until === mine[':until']) return acquired(row);
          if (row.holder !== holder && row.lease_until! >= at) return { state: 'held' };
        }
        // This holder's own claim (a retried step): renew its lease. A lapsed or forgotten one: take it over.
        // Either only if the row is still as read, so that of two callers doing so, one wins.
        const taken = await applied(
          change(key, {
            set: ['#holder = :holder', '#until = :until', ...(retained ? ['#expires = :expires'] : [])],
            remove: stale ? ['#value', '#finished'] : [],
            condition: '#holder = :seenHolder AND #until = :seenUntil',
            values: { ...mine, ':seenHolder': row.holder, ':seenUntil': row.lease_until },
          }),
        );
        if (taken) return acquired(stale ? {} : row);
      }
      return { state: 'held' };
    },

    async finish(key, holder, value, about) {
      const at = now();
      return applied(
        change(key, {
          set: ['#value = :value', '#finished = :at', ...(retained ? ['#expires = :expires'] : []), ...aboutNames(about).map((name, i) => `${name} = :a${i}`)],
          // A 'once' claim keeps its holder and lease, so that acquiring it again changes nothing; a turn ends here.
          remove: once ? [] : ['#holder', '#until'],
          condition: once ? '#holder = :holder AND attribute_not_exists(#finished)' : '#holder = :holder',
          values: { ':value': value, ':at': at.toISOString(), ':holder': holder, ...expiry(at.getTime()) },
          about,
        }),
      );
    },

    async release(key, holder) {
      // A 'once' claim given back leaves nothing behind (the work was never done); a turn leaves the value it found.
      await applied(
        once
          ? db.send(
              new DeleteCommand({
                TableName,
                Key: deps.key(key),
                ConditionExpression: '#holder = :holder AND attribute_not_exists(#finished)',
                ExpressionAttributeNames: { '#holder': 'holder', '#finished': 'finished_at' },
                ExpressionAttributeValues: { ':holder': holder },
              }),
            )
          : change(key, { set: [], remove: ['#holder', '#until'], condition: '#holder = :holder', values: { ':holder': holder } }),
      );
    },

    async record(key, value) {
      const at = now();
      await change(key, {
        set: ['#value = :value', '#finished = :at', ...(retained ? ['#expires = :expires'] : [])],
        values: { ':value': value, ':at': at.toISOString(), ...expiry(at.getTime()) },
      });
    },

    async value(key) {
      const row = (await db.send(new GetCommand({ TableName, Key: deps.key(key), ConsistentRead: true }))).Item as Row | undefined;
      if (!row || forgotten(row, now().getTime())) return undefined;
      return (once && row.finished_at === undefined ? undefined : row.value) as V | undefined;
    },
  };

  function acquired(row: Row): Acquired<V> {
    return !once && row.value !== undefined ? { state: 'acquired', value: row.value as V } : { state: 'acquired' };
  }
}
