// Listing the identity provider's users for a migration, through supabase-js's
// admin API, against the GoTrue emulator.
import { describe, expect, it } from 'vitest';
import { supabaseIdentity } from '../../../lib/identity/supabase-identity.ts';
import { confirmedUserIdsByEmail } from '../../../lib/identity/supabase-user-directory.ts';
import { supabaseVendor } from '../../../local/emulators/supabase.ts';
import { quickPolicy, useEmulators } from '../../support/emulators.ts';

const emu = useEmulators(supabaseVendor);

describe('the user directory', () => {
  it('maps every confirmed address to its user and leaves unconfirmed ones out; only the service-role key may list', async () => {
    const settings = { url: emu.env.SUPABASE_URL!, anonKey: emu.env.SUPABASE_ANON_KEY!, serviceRoleKey: emu.env.SUPABASE_SERVICE_ROLE_KEY! };
    const identity = supabaseIdentity(settings, quickPolicy);
    const made: { email: string; id: string; confirmed: boolean }[] = [];
    for (let i = 0; i < 5; i++) {
      const email = `Dir-${i}-${crypto.randomUUID()}@Example.com`;
      const r = await identity.register({ email, password: 'Secret123', metadata: {} });
      if (r.outcome !== 'registered') throw new Error(r.outcome);
      if (i % 2 === 0) await identity.confirmEmail(r.user.id);
      made.push({ email: email.toLowerCase(), id: r.user.id, confirmed: i % 2 === 0 });
    }
    const ids = await confirmedUserIdsByEmail({ url: settings.url, serviceRoleKey: settings.serviceRoleKey });
    for (const m of made) expect(ids.get(m.email)).toBe(m.confirmed ? m.id : undefined);
    await expect(confirmedUserIdsByEmail({ url: settings.url, serviceRoleKey: settings.anonKey })).rejects.toMatchObject({ vendor: 'supabase' });
  });
});
