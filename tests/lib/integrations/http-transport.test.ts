import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { beforeEach, describe, expect, it } from 'vitest';
import { failedBeforeSending, networkReason } from '../../../lib/integrations/retry.ts';
import { httpTransport } from '../../../lib/integrations/http-transport.ts';
import { refusedOrigin, useLocalServer, type Answer } from '../../support/local-server.ts';

// A local server whose routes each test sets; every request it got is kept.
let routes: Record<string, Answer> = {};
let got: { method?: string; url?: string; headers: IncomingMessage['headers']; body: string; socket: Socket }[] = [];
const server = useLocalServer((req, body, res) => {
  got.push({ method: req.method, url: req.url, headers: req.headers, body, socket: req.socket });
  const route = routes[new URL(req.url ?? '/', 'http://x').pathname];
  if (route) route(req, body, res);
  else res.writeHead(404).end();
});
beforeEach(() => {
  routes = {};
  got = [];
});

const json = (status: number, value: unknown, headers: Record<string, string> = {}): Answer => (_req, _body, res) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));

describe('the HTTP transport our vendor calls travel by', () => {
  it('sends the method, headers and body, and answers as fetch does', async () => {
    routes['/user'] = json(201, { id: 'u1' }, { 'x-supabase-api-version': '2024-01-01', 'set-cookie': 'a=1' });
    const answer = await httpTransport(`${server.base}/user?x=1`, { method: 'post', headers: { Authorization: 'Bearer t', 'Content-Type': 'application/json' }, body: '{"a":1}' });

    expect(got[0]).toMatchObject({ method: 'POST', url: '/user?x=1', body: '{"a":1}' });
    expect(got[0]!.headers).toMatchObject({ authorization: 'Bearer t', 'content-type': 'application/json', 'content-length': '7' });
    expect(got[0]!.headers['accept-encoding']).toBeUndefined();
    expect(answer).toMatchObject({ status: 201, ok: true, statusText: 'Created', url: `${server.base}/user?x=1`, redirected: false });
    expect(answer.headers.get('X-Supabase-Api-Version')).toBe('2024-01-01');
    expect(answer.headers.get('x-missing')).toBeNull();
    expect(await answer.json()).toEqual({ id: 'u1' });
  });

  it('sends bytes, and headers given as pairs or as a Headers-like object', async () => {
    routes['/upload'] = json(200, {});
    await httpTransport(`${server.base}/upload`, { method: 'POST', headers: [['Dropbox-API-Arg', '{}']], body: new Uint8Array([1, 2, 3]) });
    await httpTransport(`${server.base}/upload`, { headers: new Map([['x-one', '1']]) as unknown as Record<string, string> });

    expect(got[0]!.headers).toMatchObject({ 'dropbox-api-arg': '{}', 'content-length': '3' });
    expect(Buffer.from(got[0]!.body, 'latin1')).toEqual(Buffer.from([1, 2, 3]));
    expect(got[1]!.headers['x-one']).toBe('1');
  });

  it('answers a refusal, not an error, and reads an empty body as text', async () => {
    routes['/gone'] = (_req, _body, res) => res.writeHead(410).end();
    const answer = await httpTransport(`${server.base}/gone`);
    expect(answer).toMatchObject({ status: 410, ok: false });
    expect(await answer.text()).toBe('');
    await expect(answer.json()).rejects.toThrow(SyntaxError);
  });

  it('decodes an answer compressed although nothing asked for it', async () => {
    routes['/zipped'] = (_req, _body, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('{"ok":true}'));
    expect(await (await httpTransport(`${server.base}/zipped`)).json()).toEqual({ ok: true });
  });

  describe('redirects', () => {
    beforeEach(() => {
      routes['/moved'] = (_req, _body, res) => res.writeHead(307, { location: '/there' }).end();
      routes['/see-other'] = (_req, _body, res) => res.writeHead(303, { location: `${server.base}/there` }).end();
      routes['/elsewhere'] = (_req, _body, res) => res.writeHead(302, { location: `http://localhost:${new URL(server.base).port}/there` }).end();
      routes['/loop'] = (_req, _body, res) => res.writeHead(302, { location: '/loop' }).end();
      routes['/there'] = json(200, { here: true });
    });

    it('follows one, keeping the method and body of a 307', async () => {
      const answer = await httpTransport(`${server.base}/moved`, { method: 'PUT', body: 'x' });
      expect(answer).toMatchObject({ status: 200, redirected: true, url: `${server.base}/there` });
      expect(got.map((r) => [r.method, r.url, r.body])).toEqual([['PUT', '/moved', 'x'], ['PUT', '/there', 'x']]);
    });

    it('follows a 303 with a GET and no body', async () => {
      await httpTransport(`${server.base}/see-other`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(got[1]).toMatchObject({ method: 'GET', url: '/there', body: '' });
      expect(got[1]!.headers['content-type']).toBeUndefined();
    });

    it('does not carry credentials to another origin', async () => {
      await httpTransport(`${server.base}/elsewhere`, { headers: { authorization: 'Bearer secret', 'x-keep': '1' } });
      expect(got[1]!.headers.authorization).toBeUndefined();
      expect(got[1]!.headers['x-keep']).toBe('1');
    });

    it("hands one back when told 'manual', and refuses one when told 'error'", async () => {
      const manual = await httpTransport(`${server.base}/moved`, { redirect: 'manual' });
      expect(manual.status).toBe(307);
      expect(manual.headers.get('location')).toBe('/there');
      await expect(httpTransport(`${server.base}/moved`, { redirect: 'error' })).rejects.toThrow(TypeError);
    });

    it('gives up after 20, as fetch', async () => {
      await expect(httpTransport(`${server.base}/loop`)).rejects.toThrow('redirected more than 20 times');
      expect(got).toHaveLength(21);
    });
  });

  describe('failures', () => {
    it('rejects with the timeout signal’s own reason, which our retries read as timed out', async () => {
      routes['/hang'] = () => {};
      const error = await httpTransport(`${server.base}/hang`, { signal: AbortSignal.timeout(50) }).catch((e: unknown) => e);
      expect((error as Error).name).toBe('TimeoutError');
      expect(networkReason(error)).toBe('timed out');
    });

    it('rejects when the answer stops half-way through', async () => {
      routes['/cut'] = (_req, _body, res) => {
        res.writeHead(200, { 'content-length': '100' });
        res.write('{"partial"');
        setTimeout(() => res.socket?.destroy(), 10);
      };
      await expect(httpTransport(`${server.base}/cut`)).rejects.toThrow(TypeError);
    });

    it('says, as fetch does through its cause, when nothing could be sent', async () => {
      const error = await httpTransport(`${await refusedOrigin()}/`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect(failedBeforeSending(error)).toBe(true);
      expect(networkReason(error)).toBe('could not be reached');
    });

    it('sends again on another connection when the server had closed the kept-alive one', async () => {
      routes['/ok'] = json(200, { n: 1 });
      await httpTransport(`${server.base}/ok`);
      // The server ends the idle connection the first call left in the pool; the client has not noticed yet.
      const [first] = got;
      first!.socket.destroy();
      const answer = await httpTransport(`${server.base}/ok`, { method: 'POST', body: 'again' });
      expect(answer.status).toBe(200);
      expect(got.slice(1).map((r) => r.body)).toEqual(['again']);
      expect(got[1]!.socket).not.toBe(first!.socket);
    });

    it('does not send again a request whose answer had begun when the kept-alive connection broke', async () => {
      routes['/ok'] = json(200, { n: 1 });
      routes['/cut'] = (_req, _body, res) => {
        res.writeHead(200, { 'content-length': '100' });
        res.write('{"partial"');
        setTimeout(() => res.socket?.resetAndDestroy(), 10);
      };
      await httpTransport(`${server.base}/ok`);
      await expect(httpTransport(`${server.base}/cut`, { method: 'POST', body: 'once' })).rejects.toThrow(TypeError);
      expect(got.map((r) => r.url)).toEqual(['/ok', '/cut']);
      expect(got[1]!.socket).toBe(got[0]!.socket);
    });

    it('refuses what it cannot send instead of sending something else', async () => {
      await expect(httpTransport('ftp://example.org/file')).rejects.toThrow('http and https only');
      await expect(httpTransport(`${server.base}/x`, { method: 'POST', body: {} as unknown as string })).rejects.toThrow('a string or bytes');
    });
  });
});
