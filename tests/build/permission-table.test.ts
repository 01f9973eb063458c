// The permission table people read (docs/accounts.md) is the one the HTTP stack enforces.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { permissionTable } from '../../lib/access/permission-table.ts';
import { catalog } from '../../lib/api/catalog.ts';

describe('docs/accounts.md', () => {
  it('shows the permission table of the route catalog', () => {
    const doc = readFileSync('docs/accounts.md', 'utf8');
    const shown = /<!-- permission-table[^>]*-->\n([\s\S]*?)\n<!-- \/permission-table -->/.exec(doc)?.[1];
    expect(shown, 'replace the table in docs/accounts.md with this one').toBe(permissionTable(catalog));
  });
});
