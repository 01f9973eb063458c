// The plans the service sells. `free` needs no payment; each paid plan is a
// subscription to one recurring price, configured per deployment
// (STRIPE_PRICE_STARTER, _PRO, _ENTERPRISE).

export const PAID_PLANS = ['starter', 'pro', 'enterprise'] as const;
export const PLANS = ['free', ...PAID_PLANS] as const;

export type PaidPlan = (typeof PAID_PLANS)[number];
export type Plan = (typeof PLANS)[number];

export const isPlan = (value: unknown): value is Plan => typeof value === 'string' && (PLANS as readonly string[]).includes(value);
export const isPaidPlan = (value: unknown): value is PaidPlan =>
  typeof value === 'string' && (PAID_PLANS as readonly string[]).includes(value);

/** A plan as a person or a link spells it: " Pro " is pro; anything else is not a plan. */
export function planFrom(value: string | undefined): Plan | undefined {
  const normalised = value?.trim().toLowerCase();
  return isPlan(normalised) ? normalised : undefined;
}

/** The price id of each paid plan; a plan without one is not sold by this deployment. */
export type PlanPrices = Partial<Record<PaidPlan, string>>;

/** The plan a price belongs to (undefined: a price this deployment does not sell). */
export function planOfPrice(prices: PlanPrices, priceId: string | undefined): PaidPlan | undefined {
  if (!priceId) return undefined;
  return PAID_PLANS.find((plan) => prices[plan] === priceId);
}
