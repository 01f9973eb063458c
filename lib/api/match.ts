import type { RouteSpec } from '../http/route.ts';

const templateCache = new Map<string, RegExp>();

function templateRegex(path: string): RegExp {
  let re = templateCache.get(path);
  if (!re) {
    const pattern = path
      .split('/')
      .map((segment) =>
        /^\{[^}]+\+\}$/.test(segment) ? '.+' : /^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    re = new RegExp(`^${pattern}$`);
    templateCache.set(path, re);
  }
  return re;
}

/** The methods the catalog serves at this concrete path (empty: no such path). */
export function methodsAt(path: string, routes: readonly Pick<RouteSpec, 'method' | 'path'>[]): string[] {
  const normalised = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return [...new Set(routes.filter((r) => templateRegex(r.path).test(normalised)).map((r) => r.method))];
}
