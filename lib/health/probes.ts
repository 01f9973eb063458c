import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStateMachineCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { IntegrationSettings } from '../config.ts';
import { httpTransport } from '../integrations/http-transport.ts';
import { integrations, vendors, vendorsOf, type Registry, type VendorSpec } from '../provisioning/registry.ts';
import { timed, type Check, type CheckRun, type StatusDeps } from './status.ts';

const PROBE_TIMEOUT_MS = 2500;
// The AWS SDK sets no request timeout of its own and retries: without a
// signal, a hung endpoint would hold /status until the Lambda times out.
const probeOptions = () => ({ abortSignal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });

interface Clients {
  dynamodb: DynamoDBClient;
  sfn: SFNClient;
  accountsTable: string;
  /** A state machine to describe; unset until the deployment has one. */
  stateMachineArn?: string;
}

/**
 * The checks /status runs, built from this deployment's configuration: its own DynamoDB and Step
 * Functions, the identity provider and payments, and every vendor an integration of the registry calls.
 */
export function statusChecks(config: IntegrationSettings, clients: Clients, registry: Registry = { integrations, vendors }): StatusDeps {
  const sfnArn = clients.stateMachineArn;
  return {
    dependencies: {
      dynamodb: async () => ({
        configured: true,
        ...(await timed(() => clients.dynamodb.send(new DescribeTableCommand({ TableName: clients.accountsTable }), probeOptions()))),
      }),
      stepFunctions: async () =>
        sfnArn
          ? { configured: true, ...(await timed(() => clients.sfn.send(new DescribeStateMachineCommand({ stateMachineArn: sfnArn }), probeOptions()))) }
          : { configured: false, reachable: null },
    },
    integrations: {
      identity: httpCheck('supabase', config.identity.serviceRoleKey ? 'anon + service role' : 'anon only', config.identity.url && `${config.identity.url}/auth/v1/health`),
      payments: httpCheck('stripe', stripeMode(config.payments?.secretKey), config.payments && `${config.payments.apiBase}/v1`),
      ...Object.fromEntries(
        vendorsOf(Object.keys(registry.integrations), registry).map((name) => {
          const vendor = registry.vendors[name];
          if (!vendor) throw new Error(`The registry names the vendor ${name}, which it does not describe`);
          return [name, vendorCheck(name, vendor, config[vendor.settings])];
        }),
      ),
    },
  };
}

/** A vendor's check: reached at its probe address when it has one, else built in (nothing to reach). */
function vendorCheck(name: string, vendor: VendorSpec, settings: unknown): CheckRun {
  const url = vendor.probeUrl(settings as never);
  if (url || !settings) return httpCheck(name, settings ? vendor.mode(settings as never) : '', url);
  return async () => ({ configured: true, mode: vendor.mode(settings as never), reachable: null });
}

function httpCheck(vendor: string, mode: string, url: string | undefined | null | false): CheckRun {
  if (!url) return async () => ({ configured: false, reachable: null });
  const endpoint = new URL(url).origin;
  return async (): Promise<Check> => ({
    configured: true,
    mode: `${vendor}${mode ? ` (${mode})` : ''}`,
    endpoint,
    // Unauthenticated on purpose: any HTTP answer proves reachability, and no credential leaves the service.
    ...(await timed(() => httpTransport(url, { method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) }))),
  });
}

function stripeMode(key: string | undefined): string {
  if (!key) return '';
  if (key.startsWith('sk_live_') || key.startsWith('rk_live_')) return 'live';
  if (key.startsWith('sk_test_') || key.startsWith('rk_test_')) return 'test';
  return 'unknown key type';
}
