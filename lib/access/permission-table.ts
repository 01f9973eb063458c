// The permission table as people read it (docs/accounts.md): one row per route,
// made from the same rules the HTTP stack enforces; a test keeps the
// document's copy equal to this.
import { PERMISSIONS } from '../permissions.ts';
import type { Access } from './rules.ts';

function callers(access: Access): string {
  switch (access.who) {
    case 'anyone':
      return access.recognise === 'admin' ? 'anyone; the admin key, or a signed-in admin user, sees more' : 'anyone';
    case 'path-secret':
      return "anyone holding the account's webhook secret (in the path)";
    case 'signed':
      return 'the payment provider (signed body)';
    case 'user':
      return 'any signed-in user';
    case 'admin':
      return access.serviceKey ? 'the admin key, the internal API key, or a signed-in admin user' : 'the admin key, or a signed-in admin user';
    case 'member':
      return [
        `${PERMISSIONS[access.permission].join(', ')} (${access.permission})`,
        ...(access.serviceKey ? ['or the internal API key'] : []),
        ...(access.adminKey ? ['or the admin key, or a signed-in admin user'] : []),
        ...(access.anonymous ? ['anonymous: sent to sign up'] : []),
      ].join('; ');
  }
}

function account(access: Access): string {
  if (access.who !== 'member') return '';
  if ('path' in access.account) return `path \`${access.account.path}\``;
  if ('runPath' in access.account) return 'the run in the path';
  return `\`accountId\` in the ${access.account.named}, else your only account`;
}

/** The table of these routes (the catalog's RouteSpecs, lib/api/catalog.ts). */
export function permissionTable(routes: readonly { method: string; path: string; access: Access }[]): string {
  const rows = routes.map((r) => `| \`${r.method} ${r.path}\` | ${callers(r.access)} | ${account(r.access)} |`);
  return ['| Route | Who may call | The account it acts on |', '|---|---|---|', ...rows].join('\n');
}
