import { inject } from 'vitest';

export const stack = () => inject('stack');

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Calls the running API the way a front end does. */
export async function api<T = any>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${stack().urls.api}${path}`, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** Reads what the vendor emulators recorded. */
export async function recorded<T = any>(kind: string): Promise<T> {
  const res = await fetch(`${stack().urls.emulators}/_local/${kind}`);
  if (!res.ok) throw new Error(`GET /_local/${kind} answered ${res.status}`);
  return (await res.json()) as T;
}

export async function injectFault(fault: { vendor: string; mode: 'fail' | 'throttle' | 'hang'; count?: number; match?: string; retryAfterSeconds?: number }) {
  const res = await fetch(`${stack().urls.emulators}/_local/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
  if (res.status !== 201) throw new Error(`fault refused: ${res.status} ${await res.text()}`);
}

/** Asserts the documented error shape and returns its code. */
export function errorCode(reply: Reply): string {
  const b = reply.body;
  if (!b || typeof b.error?.code !== 'string' || typeof b.error?.message !== 'string' || typeof b.requestId !== 'string') {
    throw new Error(`not the JSON error shape: ${reply.status} ${reply.text.slice(0, 300)}`);
  }
  return b.error.code;
}
