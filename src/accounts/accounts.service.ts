import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/problem';
import { Account } from './account.entity';
import { AccountsRepository } from './accounts.repository';
import { normaliseEmail } from './email';
import { isPlanName, PlanName } from './plans';

export class UnknownPlanError extends DomainError {
  constructor(detail: string) {
    super('unknown-plan', 'Unknown plan', detail);
  }
}

export class AccountNotFoundError extends DomainError {
  constructor(detail: string) {
    super('account-not-found', 'No such account', detail);
  }
}

export class AccountExistsError extends DomainError {
  constructor(detail: string) {
    super('account-exists', 'Account exists', detail);
  }
}

/** Accounts and their plans, for operators (CLI, admin API) and later the billing provider. */
@Injectable()
export class AccountsService {
  constructor(private readonly accounts: AccountsRepository) {}

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
}

function checkPlan(plan: string): PlanName {
  if (!isPlanName(plan)) throw new UnknownPlanError(`plan must be free or paid, got "${plan}"`);
  return plan;
}
