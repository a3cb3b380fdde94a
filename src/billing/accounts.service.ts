import { Injectable } from '@nestjs/common';
import { Account } from '../auth/account.entity';
import { AccountsRepository } from '../auth/accounts.repository';
import { ProblemError } from '../common/problem';
import { normaliseEmail } from '../auth/api-keys.service';
import { Clock, monthOf } from './clock';
import { isPlanName, PLANS, PlanName } from './plans';
import { UsageRepository } from './usage.repository';

export class UnknownPlanError extends ProblemError {
  constructor(detail: string) {
    super(422, 'unknown-plan', 'Unknown plan', detail);
  }
}

export class AccountNotFoundError extends ProblemError {
  constructor(detail: string) {
    super(404, 'account-not-found', 'No such account', detail);
  }
}

export class AccountExistsError extends ProblemError {
  constructor(detail: string) {
    super(409, 'account-exists', 'Account exists', detail);
  }
}

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

/** Accounts and their plans, for operators (CLI, admin API) and later the billing provider. */
@Injectable()
export class AccountsService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly usage: UsageRepository,
    private readonly clock: Clock,
  ) {}

  async list(): Promise<Account[]> {
    return this.accounts.list();
  }

  async find(email: string): Promise<Account> {
    const address = normaliseEmail(email);
    const account = await this.accounts.findByEmail(address);
    if (!account) throw new AccountNotFoundError(`no account for ${address}`);
    return account;
  }

  async create(email: string, plan: string = 'free'): Promise<Account> {
    const address = normaliseEmail(email);
    const account = await this.accounts.insert({ email: address, plan: checkPlan(plan) });
    if (!account) throw new AccountExistsError(`an account for ${address} exists`);
    return account;
  }

  async setPlan(email: string, plan: string): Promise<{ email: string; plan: PlanName }> {
    const address = normaliseEmail(email);
    const checked = checkPlan(plan);
    if (!(await this.accounts.setPlan({ email: address }, checked)))
      throw new AccountNotFoundError(`no account for ${address}`);
    return { email: address, plan: checked };
  }

  async usageOf(email: string): Promise<AccountUsage> {
    const account = await this.find(email);
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

function checkPlan(plan: string): PlanName {
  if (!isPlanName(plan)) throw new UnknownPlanError(`plan must be free or paid, got "${plan}"`);
  return plan;
}
