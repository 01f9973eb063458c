// A plain HTTP server on a free loopback port, for the tests of one file: it
// reads each request's body whole, then hands the request to `answer`, which
// may answer in full, in part, or not at all. Stopped after the file's tests.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export type Answer = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/** The server's origin (http://127.0.0.1:<port>), known once the file's tests run. */
export function useLocalServer(answer: Answer): { readonly base: string } {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => answer(req, body, res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  return {
    get base() {
      return base;
    },
  };
}

/** An origin where nothing listens (a port that was free a moment ago): a connection to it is refused. */
export async function refusedOrigin(): Promise<string> {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  return `http://127.0.0.1:${port}`;
}
