// How supabase-js's auth client (GoTrueClient) sends its requests: given as its
// `fetch`, and used by the identity adapter and by the bench's fixed-SDK floor.
import type { HttpTransport } from '../integrations/http-transport.ts';

/**
 * The `fetch` a GoTrueClient is given: its requests sent by `transport` (node:http(s), not the global fetch:
 * http-transport.ts says why), with `query` added to each and, when given, a timeout. Of what its fetch
 * answers, auth-js reads only ok, status, statusText, headers.get and json() (lib/fetch.ts, handleError); it
 * sends a plain object of headers and a JSON string (_getRequestParams).
 */
export function goTrueFetch(transport: HttpTransport, query: Record<string, string> = {}, timeoutMs?: number): typeof fetch {
  const send = (input: string | URL, init?: RequestInit) =>
    transport(withQuery(input, query), {
      method: init?.method,
      headers: init?.headers as Record<string, string> | undefined,
      body: init?.body as string | undefined,
      signal: init?.signal ?? (timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)),
    });
  return send as unknown as typeof fetch;
}

/** The request's URL with these query parameters added (supabase-js always calls fetch with a URL string). */
function withQuery(input: string | URL, query: Record<string, string>): string | URL {
  if (Object.keys(query).length === 0) return input;
  const url = new URL(input);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url.href;
}
