// The people of an account as tests make them: an owner who signed up with a
// company, people who signed up without one, and joining by invitation.
import { expect } from 'vitest';
import { bearer, client, logIn, signedInUser, verifiedUser } from './users.ts';

export type Who = { client: ReturnType<typeof client>; auth: Record<string, string>; email: string };

/** Someone who signed up with a company, and so owns its account. */
export async function owner(companyName = `Team ${crypto.randomUUID().slice(0, 6)}`) {
  const person = await signedInUser({ companyName });
  const me = await person.client.get('/api/auth/me', bearer(person.accessToken));
  expect(me.body.accounts).toEqual([expect.objectContaining({ role: 'owner' })]);
  return { ...person, auth: bearer(person.accessToken), accountId: me.body.accounts[0].accountId as string, companyName };
}

/** Someone who signs up with this address (no company) and logs in. */
export async function person(email = `${crypto.randomUUID()}@example.com`): Promise<Who> {
  const c = client();
  await verifiedUser(c, undefined, email);
  const token = (await logIn(c, email)).body.session.access_token as string;
  return { email, client: c, auth: bearer(token) };
}

/** The inviter invites the invitee, who accepts. */
export async function join(inviter: Who, accountId: string, invitee: Who, role: 'owner' | 'admin' | 'member') {
  const invited = await inviter.client.post(`/api/accounts/${accountId}/invitations`, { email: invitee.email, role }, inviter.auth);
  expect(invited.status).toBe(201);
  expect((await invitee.client.post(`/api/invitations/${invited.body.invitationId}/accept`, undefined, invitee.auth)).status).toBe(200);
}

export const userIdOf = async (viewer: Who, accountId: string, email: string) =>
  (await viewer.client.get(`/api/accounts/${accountId}/members`, viewer.auth)).body.members.find((m: { email: string }) => m.email === email).userId as string;

export interface InvitationView {
  invitationId: string;
  email: string;
  role: string;
  status: string;
  invitedBy: { kind: string };
}

/** The account's invitations to this address, as its owner lists them. */
export const invitationsTo = async (viewer: Who, accountId: string, email: string): Promise<InvitationView[]> =>
  (await viewer.client.get(`/api/accounts/${accountId}/invitations`, viewer.auth)).body.invitations.filter((i: InvitationView) => i.email === email);
