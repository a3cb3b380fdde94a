import type { PlanName } from './plans';

/** Who is calling, as the API key guard found them: an account and its plan. */
export interface Caller {
  accountId: string;
  plan: PlanName;
}
