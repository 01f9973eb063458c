// The bundles take the AWS SDK's environment credential provider in place of
// its whole default chain (infra/esbuild-plugins.mjs). The default chain
// reads the credentials once and keeps them until they near their
// expiration; the stand-in must too, or every AWS call of a warm function
// reads the environment and builds the credentials again.
import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { credentialsFromEnvironment } from '../../infra/esbuild-plugins.mjs';

const dir = mkdtempSync(join(tmpdir(), 'credentials-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const saved = { ...process.env };
afterEach(() => {
  for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_CREDENTIAL_EXPIRATION']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

/** A DynamoDB client as a bundle makes it, built once with the plugin. */
let bundle: Promise<string> | undefined;
const bundled = () =>
  (bundle ??= build({
    stdin: {
      contents: `import { DynamoDBClient } from '@aws-sdk/client-dynamodb'; export const client = new DynamoDBClient({ region: 'eu-west-1' });`,
      resolveDir: process.cwd(),
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'silent',
    plugins: [credentialsFromEnvironment()],
  }).then((built) => built.outputFiles[0]!.text));

/** The resolved credential provider of a fresh instance of that bundle (loaded from a file of its own). */
async function bundledProvider(name: string): Promise<() => Promise<{ accessKeyId: string }>> {
  const file = join(dir, `${name}.cjs`);
  writeFileSync(file, await bundled());
  const { client } = (await import(pathToFileURL(file).href)).default;
  return client.config.credentials;
}

describe('the credential provider the bundles carry', () => {
  it('reads the environment once, as the default chain does', async () => {
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'FIRST', AWS_SECRET_ACCESS_KEY: 'first-secret' });
    const credentials = await bundledProvider('once');
    expect((await credentials()).accessKeyId).toBe('FIRST');
    process.env.AWS_ACCESS_KEY_ID = 'SECOND';
    expect((await credentials()).accessKeyId).toBe('FIRST');
  });

  it('reads them again once they near their expiration', async () => {
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'OLD', AWS_SECRET_ACCESS_KEY: 'old-secret', AWS_CREDENTIAL_EXPIRATION: new Date(Date.now() + 60_000).toISOString() });
    const credentials = await bundledProvider('expiring');
    expect((await credentials()).accessKeyId).toBe('OLD');
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'NEW', AWS_CREDENTIAL_EXPIRATION: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await credentials()).accessKeyId).toBe('NEW');
    process.env.AWS_ACCESS_KEY_ID = 'NEWER';
    expect((await credentials()).accessKeyId).toBe('NEW');
  });
});
