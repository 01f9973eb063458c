// Who may manage an account's webhooks: the same callers as onboarding (the
// internal x-api-key, or a bearer token asked of the identity provider).
// Created once per Lambda instance.
import { config } from '../config.ts';
import { supabaseIdentity } from '../identity/supabase-identity.ts';
import { policyFrom } from '../integrations/http-client.ts';
import type { AccessDeps } from '../onboarding/access.ts';

export const access: AccessDeps = { identity: supabaseIdentity(config.identity, policyFrom(config.vendors)), internalApiKey: config.access.internalApiKey };
