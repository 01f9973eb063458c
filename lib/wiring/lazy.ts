// How the composition root builds things: each store, adapter and set of deps
// once per Lambda instance, on the first call of the function that asks for
// it, and kept for warm invocations; an adapter's module (and the SDK behind
// it) is imported only when one of its methods is first called.

const built = new Map<string, unknown>();

/** The thing built under this key, built now if it is the first ask. */
export function kept<T>(key: string, build: () => T): T {
  if (!built.has(key)) built.set(key, build());
  return built.get(key) as T;
}

/**
 * A port whose adapter module is imported on its first method call. Every
 * method of the port returns a promise; `fixed` gives the members that are
 * answered from settings alone, without the adapter.
 */
export function onFirstCall<T extends object>(load: () => Promise<T>, fixed: Partial<T> = {}): T {
  let adapter: Promise<T> | undefined;
  const loaded = () =>
    (adapter ??= load().catch((error: unknown) => {
      adapter = undefined; // a failed import is tried again by the next call
      throw error;
    }));
  return new Proxy(fixed as T, {
    get(target, member) {
      if (member in target) return target[member as keyof T];
      // Not a thenable: a port may be returned from an async function.
      if (member === 'then') return undefined;
      return (...args: unknown[]) => loaded().then((port) => (port[member as keyof T] as (...a: unknown[]) => unknown)(...args));
    },
  });
}
