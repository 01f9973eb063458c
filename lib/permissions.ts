// The permission table: what a person may do to an account, by their role in
// it. Every route of the catalog names who may call it (lib/access/rules.ts); the
// HTTP stack enforces that before validation and before the handler
// (lib/access/permission-guard.ts), so a use case never has to ask again.

/** A person's role in an account, from most to least powerful. */
export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = {
  /** The account, its members and its onboarding runs. */
  read: ['owner', 'admin', 'member'],
  /** Checkout for the account, and the billing portal of its customer. */
  billing: ['owner', 'admin'],
  /** onboarding-v2 and enhanced onboarding for the account. */
  onboard: ['owner', 'admin'],
  /** Inviting people, and revoking invitations. */
  invite: ['owner', 'admin'],
  /** Webhook settings, secrets and signing keys; members' roles and removal. */
  manage: ['owner'],
  /** Closing the account (offboarding), and reopening it once closed. */
  close: ['owner'],
} as const satisfies Record<string, readonly Role[]>;
export type Permission = keyof typeof PERMISSIONS;

/**
 * What a closing or closed account still allows (lib/accounts/lifecycle.ts): reading it (any GET its
 * rule allows), and closing or reopening it. Every other request is refused with 409 account_closed, by the guard.
 */
export const WHILE_CLOSED = ['close'] as const satisfies readonly Permission[];
export const allowedWhileClosed = (method: string, permission: Permission): boolean =>
  method === 'GET' || (WHILE_CLOSED as readonly Permission[]).includes(permission);

export const allows = (permission: Permission, role: Role): boolean => (PERMISSIONS[permission] as readonly Role[]).includes(role);

/**
 * What the internal service key (x-api-key: the portal's backend) may do, in any account, on the routes
 * that take it: onboard clients and read their runs. Never `invite` (an invitation hands out a role) nor
 * `manage` (webhook secrets, signing keys, members' roles): a route for those cannot take the key
 * (lib/access/rules.ts), and the guard refuses the key anything else (lib/access/permission-guard.ts).
 */
export const SERVICE_PERMISSIONS = ['onboard', 'read'] as const satisfies readonly Permission[];
export type ServicePermission = (typeof SERVICE_PERMISSIONS)[number];
export const serviceMay = (permission: Permission): boolean => (SERVICE_PERMISSIONS as readonly Permission[]).includes(permission);

/** Whether `role` may hand out `granted` (an admin may not make owners). */
export const mayGrant = (role: Role, granted: Role): boolean => ROLES.indexOf(role) <= ROLES.indexOf(granted);

/**
 * Whether a membership (of the account a request names) grants the permission: the rule the guard applies to a
 * signed-in user. Also asked again later of someone a request was granted to, where what they started takes
 * effect afterwards (a checkout paid after its starter was removed: lib/payments/receive-payment-event.ts).
 */
export const mayAct = (membership: { status: string; role: Role } | undefined, permission: Permission): boolean =>
  membership?.status === 'active' && allows(permission, membership.role);

/** Whether a member of this role may send an invitation to `granted`: the invite permission, and a role they may hand out. */
export const mayInvite = (role: Role, granted: Role): boolean => allows('invite', role) && mayGrant(role, granted);
