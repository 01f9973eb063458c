import { beforeEach, describe, expect, it } from 'vitest';
import { slackChat } from '../../../lib/integrations/slack-chat.ts';
import { SLACK_BOT_TOKEN, SLACK_CHANNEL, slackVendor } from '../../../local/emulators/slack.ts';
import { quickPolicy, useEmulators } from '../../support/emulators.ts';

const emu = useEmulators(slackVendor);

describe('the Slack chat', () => {
  beforeEach(() => emu.reset());

  it('posts through the incoming webhook', async () => {
    await slackChat({ mode: 'incoming-webhook', webhookUrl: emu.env.SLACK_WEBHOOK_URL! }, quickPolicy).post({ text: 'New client: Acme' });
    expect(await emu.get('chat')).toEqual([expect.objectContaining({ text: 'New client: Acme', via: 'incoming-webhook' })]);
  });

  it('posts through chat.postMessage and treats ok:false as a refusal', async () => {
    const apiBase = `${emu.url}/slack/api`;
    const ok = await slackChat({ mode: 'web-api', botToken: SLACK_BOT_TOKEN, channel: SLACK_CHANNEL, apiBase }, quickPolicy).post({ text: 'hi' });
    expect(ok.ts).toBeTruthy();
    const error = await slackChat({ mode: 'web-api', botToken: SLACK_BOT_TOKEN, channel: 'C404', apiBase }, quickPolicy)
      .post({ text: 'hi' })
      .catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorRejected' });
    expect(error.context.vendorCode).toBe('channel_not_found');
  });

  it('retries a throttle (nothing was posted), posting once', async () => {
    await emu.fault({ vendor: 'slack', mode: 'throttle', count: 1, retryAfterSeconds: 1 });
    await slackChat({ mode: 'incoming-webhook', webhookUrl: emu.env.SLACK_WEBHOOK_URL! }, quickPolicy).post({ text: 'once' });
    expect(await emu.get('chat')).toHaveLength(1);
  });

  it("retries chat.postMessage's ok:false rate_limited as a throttle (nothing was posted), posting once", async () => {
    await emu.fault({ vendor: 'slack', mode: 'posting-limit', count: 1 });
    const posted = await slackChat({ mode: 'web-api', botToken: SLACK_BOT_TOKEN, channel: SLACK_CHANNEL, apiBase: `${emu.url}/slack/api` }, quickPolicy).post({ text: 'once' });
    expect(posted.ts).toBeTruthy();
    expect(await emu.get('chat')).toHaveLength(1);
    await emu.fault({ vendor: 'slack', mode: 'posting-limit', count: 20 });
    const error = await slackChat({ mode: 'web-api', botToken: SLACK_BOT_TOKEN, channel: SLACK_CHANNEL, apiBase: `${emu.url}/slack/api` }, quickPolicy)
      .post({ text: 'later' })
      .catch((e) => e);
    // Retried by the state machines' throttle schedule, where a refusal is not retried at all.
    expect(error).toMatchObject({ name: 'VendorThrottled', context: { vendorCode: 'rate_limited' } });
  });

  it("does not repeat chat.postMessage's ok:false internal_error in-process (it may have been posted), but leaves it to the step's retry", async () => {
    await emu.fault({ vendor: 'slack', mode: 'internal-error', count: 1 });
    const error = await slackChat({ mode: 'web-api', botToken: SLACK_BOT_TOKEN, channel: SLACK_CHANNEL, apiBase: `${emu.url}/slack/api` }, quickPolicy)
      .post({ text: 'once' })
      .catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorUnavailable', context: { vendorCode: 'internal_error', outcomeUnknown: true } });
    expect((await emu.get('requests')).filter((r: { vendor: string }) => r.vendor === 'slack')).toHaveLength(1);
  });

  it('never repeats a post whose answer was a 5xx: it may have been posted (vendor-contracts §4)', async () => {
    await emu.fault({ vendor: 'slack', mode: 'fail', count: 1 });
    const error = await slackChat({ mode: 'incoming-webhook', webhookUrl: emu.env.SLACK_WEBHOOK_URL! }, quickPolicy)
      .post({ text: 'once' })
      .catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorUnavailable', context: { status: 500, outcomeUnknown: true } });
    expect((await emu.get('requests')).filter((r: { vendor: string }) => r.vendor === 'slack')).toHaveLength(1);
  });

  it('reports a revoked webhook with its error word', async () => {
    const error = await slackChat({ mode: 'incoming-webhook', webhookUrl: `${emu.url}/slack/services/T/B/revoked` }, quickPolicy)
      .post({ text: 'x' })
      .catch((e) => e);
    expect(error.context).toMatchObject({ status: 404, vendorCode: 'no_service' });
  });
});
