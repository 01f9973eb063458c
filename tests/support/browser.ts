// Headless Chromium for the tests that drive pages as a person would: Debian's
// `chromium` package, driven by playwright-core (which never downloads a
// browser of its own). Where no Chromium binary exists (a machine with no
// network, where `.ci/run` could not install it), the tests that need one are
// skipped with the reason.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why browser tests cannot run here, or undefined when they can. */
export const noBrowser: string | undefined = existsSync(CHROMIUM)
  ? undefined
  : `no Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium; .ci/run does when the machine has a network)`;

/** A fresh browser profile of its own, removed on close; nothing reaches beyond this machine. */
export async function openBrowser(options: { viewport?: { width: number; height: number } } = {}): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: options.viewport ?? { width: 1280, height: 800 },
    deviceScaleFactor: 1,
    locale: 'en-GB',
    timezoneId: 'Europe/London',
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
