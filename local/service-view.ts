// What the local console (the emulator host's `/`) shows of the service's own
// data: its accounts, to say which account each recorded vendor call was for,
// and the delivery log of the inbound webhooks (webhook_events). Read straight
// from the local DynamoDB; a local convenience, never part of the service.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';

export interface ConsoleAccount {
  id: string;
  name?: string;
  slug?: string;
  domain?: string;
  /** The account's contact address (contact_email). */
  contactEmail?: string;
  /** The contact's and every member record's address. */
  emails: string[];
  stripeCustomer?: string;
}

export interface ServiceDelivery {
  /** The event key, e.g. booking#<account>#calendly#<event>. */
  key: string;
  source?: string;
  accountId?: string;
  receivedAt?: string;
  /** What the delivery that did the work did; absent while one is at work. */
  outcome?: string;
  finishedAt?: string;
}

export interface ServiceView {
  accounts: ConsoleAccount[];
  deliveries: ServiceDelivery[];
}

/** At most this many rows of a table: the console is for reading, not for auditing. */
const ROW_LIMIT = 2000;

export function serviceView(options: { endpoint: string; region: string; tablePrefix: string }): () => Promise<ServiceView> {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: options.endpoint, region: options.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  );
  const scan = async (name: string): Promise<Record<string, unknown>[]> => {
    const rows: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await client.send(new ScanCommand({ TableName: `${options.tablePrefix}${name}`, ExclusiveStartKey: start }));
      rows.push(...((page.Items ?? []) as Record<string, unknown>[]));
      start = page.LastEvaluatedKey;
    } while (start && rows.length < ROW_LIMIT);
    return rows;
  };
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return async () => {
    const [accounts, members, events] = await Promise.all([scan('accounts'), scan('account_members'), scan('webhook_events')]);
    return {
      accounts: accounts.map((a) => ({
        id: String(a.id),
        name: str(a.company_name),
        slug: str(a.portal_slug),
        domain: str(a.company_domain),
        contactEmail: str(a.contact_email)?.toLowerCase(),
        stripeCustomer: str(a.stripe_customer_id),
        emails: [
          ...new Set(
            [str(a.contact_email), ...members.filter((m) => m.account_id === a.id).map((m) => str(m.email))].filter((e): e is string => !!e).map((e) => e.toLowerCase()),
          ),
        ],
      })),
      deliveries: events.map((e) => ({
        key: String(e.event_key),
        source: str(e.source),
        accountId: str(e.account_id),
        receivedAt: str(e.received_at),
        outcome: typeof e.value === 'string' ? e.value : e.value === undefined ? undefined : JSON.stringify(e.value),
        finishedAt: str(e.finished_at),
      })),
    };
  };
}
