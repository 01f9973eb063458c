// Every route's method and path, for the $default route's 404/405 answer.
// Built into the bundle at build time (infra/esbuild-plugins.mjs,
// buildTimeValues), so the not-found function carries this table, not the
// catalog with every route's schemas; tests and the local stack compute it on
// import, with the same result.
import { catalog } from './catalog.ts';

export const routeTable = catalog.map(({ method, path }) => ({ method, path }));
