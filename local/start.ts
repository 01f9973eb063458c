// `npm start`: the whole service on this machine, in the foreground.
// Ctrl-C stops every part of it, as does a SIGTERM to npm (local/orphan.ts).
// Its options and the settings it takes from the shell are in USAGE below
// (`npm start -- --help`).
import { FIRECRAWL_API_KEY } from './emulators/firecrawl.ts';
import { stopWhenOrphaned } from './orphan.ts';
import { PAGESPEED_API_KEY } from './emulators/pagespeed.ts';
import { shellSettings, START_SETTINGS } from './serverless-config.ts';
import { DEFAULT_PORTS, startStack } from './stack.ts';
import { readCommandLine } from '../scripts/command-line.ts';

const USAGE = `Usage: npm start [-- [--watch] [--crawler-vendors]]

Runs the whole service on this machine in the foreground: DynamoDB, Step Functions, the vendor
emulators and the API. Data is kept in .local/ between runs. Ctrl-C stops every part of it.

  --watch             reload a handler when its source changes (each request then loads the
                      handler afresh: for editing sessions, not for load)
  --crawler-vendors   give the service the keys of the Firecrawl and PageSpeed emulators, so
                      crawler intelligence goes through those vendors' adapters instead of the
                      built-in crawler and page measurement
  -h, --help          this help

From the shell it takes only these settings:
  RATE_LIMIT_<NAME>=<count>/<seconds>   that rate limit (docs/api.md lists them), e.g. RATE_LIMIT_SIGNUP=5/600
                                        npm start for production's; the limits per client IP and per e-mail
                                        address are ${START_SETTINGS.RATE_LIMIT_SIGNUP} here unless set
  OFFBOARDING_GRACE_SECONDS=<seconds>   how long after a subscription ends its client is offboarded
                                        (${START_SETTINGS.OFFBOARDING_GRACE_SECONDS} here unless set; 14 days on AWS by default)
  CORS_EXTRA_ORIGINS=<origins>          a front end's origins, e.g. http://localhost:5173
  DASHBOARD_URL=<url>, PORTAL_URL=<url> your own dashboard or portal: no reference pages are served for it`;
const options = readCommandLine({
  usage: USAGE,
  options: {
    watch: { type: 'boolean', default: false },
    'crawler-vendors': { type: 'boolean', default: false },
  },
});
const watch = options.watch;
const crawlerVendors = options['crawler-vendors'];

const started = performance.now();
console.log('Starting the local stack (DynamoDB, Step Functions, vendor emulators, API)...');

const settings: Record<string, string> = { ...START_SETTINGS, ...shellSettings(process.env), ...(crawlerVendors ? { FIRECRAWL_API_KEY, PAGESPEED_API_KEY } : {}) };
const aborted = new AbortController();
const starting = startStack({
  ports: DEFAULT_PORTS,
  dataDir: '.local',
  watch,
  inProcess: !watch,
  settings,
  log: (line) => console.log(`  ${line}`),
  signal: aborted.signal,
});

// Ctrl-C is handled from the first moment: serverless-offline runs in a process
// group of its own, so a Ctrl-C while it builds would otherwise leave it behind.
let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping...');
  aborted.abort();
  // Still starting: startStack stops what had started, then rejects.
  const stack = await starting.catch(() => undefined);
  await stack?.stop();
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
stopWhenOrphaned(() => void shutdown());

const stack = await starting.catch((error: Error) => {
  if (aborted.signal.aborted) return new Promise<never>(() => {}); // shutdown() exits
  console.error(`The local stack could not start: ${error.message}`);
  process.exit(1);
});

function frontEndNote(site: 'dashboard' | 'portal'): string {
  return stack.pages.includes(site) ? '             (reference pages: docs/local-stack.md)' : `  (yours: ${site === 'dashboard' ? 'DASHBOARD_URL' : 'PORTAL_URL'})`;
}

console.log(`
Ready in ${((performance.now() - started) / 1000).toFixed(1)} s

  API                 ${stack.urls.api}            (try ${stack.urls.api}/status)
  API description     ${stack.urls.api}/openapi.json
  Dashboard           ${stack.urls.dashboard}${frontEndNote('dashboard')}
  Client portal       ${stack.urls.portal}${frontEndNote('portal')}
  Vendor emulators    ${stack.urls.emulators}            (recordings, faults)
  DynamoDB            ${stack.urls.dynamodb}
  Step Functions      ${stack.urls.stepFunctions}   (aws stepfunctions ... --endpoint-url ${stack.urls.stepFunctions})
  Lambda (invoke)     ${stack.urls.lambda}

A front end's supabase-js: SUPABASE_URL ${stack.env.SUPABASE_URL}, SUPABASE_ANON_KEY ${stack.env.SUPABASE_ANON_KEY}
Rate limits: signup ${settings.RATE_LIMIT_SIGNUP}, login ${settings.RATE_LIMIT_LOGIN} (RATE_LIMIT_<NAME>=<count>/<seconds> npm start sets one: npm start -- --help)
Data is kept in .local/ between runs. Press Ctrl-C to stop.
`);
