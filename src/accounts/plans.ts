export type PlanName = 'free' | 'paid';

export interface Plan {
  name: PlanName;
  /** Calls per calendar month (UTC), both endpoints together; null: no cap. */
  monthlyCalls: number | null;
}

export const PLANS: Record<PlanName, Plan> = {
  free: { name: 'free', monthlyCalls: 1000 },
  paid: { name: 'paid', monthlyCalls: null },
};

export function isPlanName(name: string): name is PlanName {
  return Object.hasOwn(PLANS, name);
}
