// Users in a given state, made through an identity provider (the Supabase
// adapter against the GoTrue emulator, in the tests that use it).
import type { IdentityProvider } from '../../lib/identity/identity.ts';
import { newEmail } from './users.ts';

/** Helpers over `identity`; recovery links send their sessions to `redirectTo`. */
export function identityUsers(identity: () => IdentityProvider, redirectTo: string) {
  async function registered(password = 'Secret123') {
    const email = newEmail();
    const result = await identity().register({ email, password, metadata: { companyName: 'Acme' } });
    if (result.outcome !== 'registered') throw new Error('not registered');
    return { email, password, user: result.user };
  }

  async function confirmed(password = 'Secret123') {
    const r = await registered(password);
    await identity().confirmEmail(r.user.id);
    return r;
  }

  async function signedIn(password = 'Secret123') {
    const r = await confirmed(password);
    const result = await identity().signIn(r.email, password);
    if (result.outcome !== 'signed-in') throw new Error(result.outcome);
    return { ...r, accessToken: result.session.accessToken };
  }

  /** Follows an e-mailed recovery link as a browser does; the access token from where it lands. */
  async function followRecoveryLink(link: string) {
    const res = await fetch(link, { redirect: 'manual' });
    const landing = new URL(res.headers.get('location')!);
    return { landing: `${landing.origin}${landing.pathname}`, token: new URLSearchParams(landing.hash.slice(1)).get('access_token') };
  }

  /** The token of a recovery session, from a recovery link followed as a browser does. */
  async function recoveryToken(email: string) {
    const link = await identity().createRecoveryLink(email, redirectTo);
    return (await followRecoveryLink(link!)).token!;
  }

  return { registered, confirmed, signedIn, followRecoveryLink, recoveryToken };
}
