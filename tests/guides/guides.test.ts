// The guides run as written (docs/testing.md): every shell block of README.md, docs/ and the typed
// client's README, run against a fresh local stack in reading order, then against another in reverse,
// each command held to its exit status and to the answers the guide shows.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack } from '../support/stack-setup.ts';
import { namesOf, readGuides } from './guide-blocks.ts';
import { runWalkthrough, type PortMap } from './run-walkthrough.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const guides = readGuides(root);
const runnable = guides.filter((walkthrough) => !walkthrough.skipReason);

it('every walk-through makes its accounts, companies and e-mail addresses under names of its own', () => {
  const owners = new Map<string, string[]>();
  for (const walkthrough of runnable) for (const name of namesOf(walkthrough)) owners.set(name, [...(owners.get(name) ?? []), walkthrough.name]);
  expect([...owners].filter(([, walkthroughs]) => walkthroughs.length > 1)).toEqual([]);
});

/** npm start's fixed ports (local/stack.ts DEFAULT_PORTS), each with the test stack's in its place. */
function portsOf(urls: Record<string, string>): PortMap {
  const port = (url: string) => Number(new URL(url).port);
  const fixed: Record<string, number> = { api: 10000, emulators: 10001, lambda: 3002, dynamodb: 8000, stepFunctions: 8083, dashboard: 3000, portal: 3001 };
  return Object.entries(fixed).map(([name, number]) => [number, port(urls[name]!)]);
}

for (const order of ['reading order', 'reverse order'] as const) {
  describe(`the guides in ${order}, against a fresh stack`, () => {
    let stack: Awaited<ReturnType<typeof startTestStack>> | undefined;
    beforeAll(async () => {
      stack = await startTestStack('guides');
    });
    afterAll(async () => stack?.stop());

    const walkthroughs = order === 'reading order' ? guides : [...guides].reverse();
    for (const walkthrough of walkthroughs) {
      if (walkthrough.skipReason) {
        it.skip(`${walkthrough.name} (skipped: ${walkthrough.skipReason})`, () => {});
        continue;
      }
      it(walkthrough.name, async () => {
        const { urls } = stack!.info;
        await runWalkthrough(walkthrough, {
          root,
          ports: portsOf(urls),
          // `npm run executions` finds the local stack here, as it finds npm start's on the fixed ports.
          env: { AWS_ENDPOINT_URL_SFN: urls.stepFunctions, AWS_ENDPOINT_URL_DYNAMODB: urls.dynamodb },
        });
      });
    }
  });
}
