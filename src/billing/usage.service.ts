import { Injectable } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import { PLANS, PlanName } from '../accounts/plans';
import { Clock, monthOf } from './clock';
import { UsageRepository } from './usage.repository';

export interface AccountUsage {
  email: string;
  plan: PlanName;
  month: string;
  calls: number;
  /** Calls included per month; null: no cap. */
  limit: number | null;
  /** Calls per day over the last 30 days, days without calls left out. */
  daily: { day: string; calls: number }[];
}

/** An account's calls this month and over the last 30 days, against its plan. */
@Injectable()
export class UsageService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly usage: UsageRepository,
    private readonly clock: Clock,
  ) {}

  async usageOf(email: string): Promise<AccountUsage> {
    const account = await this.accounts.find(email);
    const now = this.clock.now();
    const month = monthOf(now);
    const since = new Date(now.getTime() - 29 * 86_400_000).toISOString().slice(0, 10);
    return {
      email: account.email,
      plan: account.plan,
      month,
      calls: await this.usage.monthCalls(account.id, month),
      limit: PLANS[account.plan].monthlyCalls,
      daily: await this.usage.daily(account.id, since),
    };
  }
}
