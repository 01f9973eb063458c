// `npm start`: the whole service on this machine, in the foreground.
// Ctrl-C stops every part of it, as does a SIGTERM to npm (local/orphan.ts).
// `npm start -- --watch` reloads a handler when its source changes (each
// request then loads the handler afresh, so it is for editing sessions, not
// for load).
// `npm start -- --crawler-vendors` gives the service the keys of the Firecrawl
// and PageSpeed emulators, so crawler intelligence goes through those vendors'
// adapters instead of the built-in crawler and page measurement.
// RATE_LIMIT_<NAME>=<count>/<seconds> in the shell sets that limit (e.g.
// RATE_LIMIT_SIGNUP=100/60 npm start), CORS_EXTRA_ORIGINS adds a front end's
// origin (e.g. http://localhost:5173), DASHBOARD_URL or PORTAL_URL names your
// own dashboard or portal (no reference pages are served for it); nothing else
// comes from the shell.
import { FIRECRAWL_API_KEY } from './emulators/firecrawl.ts';
import { stopWhenOrphaned } from './orphan.ts';
import { PAGESPEED_API_KEY } from './emulators/pagespeed.ts';
import { shellSettings } from './serverless-config.ts';
import { DEFAULT_PORTS, startStack } from './stack.ts';

const watch = process.argv.includes('--watch');
const crawlerVendors = process.argv.includes('--crawler-vendors');

const started = performance.now();
console.log('Starting the local stack (DynamoDB, Step Functions, vendor emulators, API)...');

const aborted = new AbortController();
const starting = startStack({
  ports: DEFAULT_PORTS,
  dataDir: '.local',
  watch,
  inProcess: !watch,
  settings: { ...shellSettings(process.env), ...(crawlerVendors ? { FIRECRAWL_API_KEY, PAGESPEED_API_KEY } : {}) },
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

Data is kept in .local/ between runs. Press Ctrl-C to stop.
`);
