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

  it('drops entries below its level', () => {
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    createLogger({}, 'warn').info('quiet');
    expect(spy).not.toHaveBeenCalled();
  });
});
