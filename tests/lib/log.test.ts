import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../lib/log.ts';

describe('structured logs', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes one JSON line with the correlation id and redacts secrets by key', () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    createLogger({ correlationId: 'c-1' }, 'info').info('signed up', {
      email: 'a@b.co',
      password: 'Hunter2hunter2',
      headers: { authorization: 'Bearer abc.def', 'x-api-key': 'k' },
      nested: { refresh_token: 'r', webhookSecret: 's' },
    });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!);
    expect(entry).toMatchObject({ level: 'info', message: 'signed up', correlationId: 'c-1', email: 'a@b.co' });
    const text = lines[0]!;
    for (const secret of ['Hunter2hunter2', 'abc.def', '"k"', '"r"', '"s"']) expect(text).not.toContain(secret);
  });

  it('redacts inside lists too, and keys that name JWTs, private or access keys, webhook URLs, credentials and shared links', () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    createLogger({}, 'info').info('sent', {
      attempts: [{ accessToken: 'a1' }, [{ password: 'p1' }], 'kept'],
      jwt: 'j1',
      serviceRoleKey: 'k1',
      privateKey: 'k2',
      accessKeyId: 'k3',
      slackWebhookUrl: 'https://hooks.example/T/B/x1',
      credentials: { user: 'u' },
      sharedLink: 'https://dropbox.example/l1',
      idempotencyKey: 'visible',
    });
    const text = lines[0]!;
    for (const secret of ['a1', 'p1', 'j1', 'k1', 'k2', 'k3', 'x1', '"u"', 'l1']) expect(text).not.toContain(secret);
    expect(JSON.parse(text)).toMatchObject({ idempotencyKey: 'visible', attempts: [{ accessToken: '[redacted]' }, [{ password: '[redacted]' }], 'kept'] });
  });

  it("names the function it was made in, and its derived loggers too, though the environment names another later (serverless-offline runs every function in one process)", () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const before = process.env.AWS_LAMBDA_FUNCTION_NAME;
    try {
      process.env.AWS_LAMBDA_FUNCTION_NAME = 'agency-backend-local-provision-storage-tree';
      const log = createLogger({}, 'info');
      process.env.AWS_LAMBDA_FUNCTION_NAME = 'agency-backend-local-sync-crm-lead';
      log.info('made the folders');
      log.with({ requestId: 'r-1' }).info('shared the link');
    } finally {
      if (before === undefined) delete process.env.AWS_LAMBDA_FUNCTION_NAME;
      else process.env.AWS_LAMBDA_FUNCTION_NAME = before;
    }
    expect(lines.map((l) => JSON.parse(l).function)).toEqual(['agency-backend-local-provision-storage-tree', 'agency-backend-local-provision-storage-tree']);
  });

  it('drops entries below its level', () => {
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    createLogger({}, 'warn').info('quiet');
    expect(spy).not.toHaveBeenCalled();
  });
});
