import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Account } from '../auth/account.entity';
import { normaliseEmail } from '../auth/api-keys.service';
import { isPlanName, PlanName } from './plans';

export class UnknownPlanError extends Error {}
export class AccountNotFoundError extends Error {}

/** Moves accounts between plans (operators today; the billing provider later). */
@Injectable()
export class PlansService {
  constructor(private readonly db: DataSource) {}

  async setPlan(email: string, plan: string): Promise<{ email: string; plan: PlanName }> {
    if (!isPlanName(plan)) throw new UnknownPlanError(`plan must be free or paid, got "${plan}"`);
    const address = normaliseEmail(email);
    const result = await this.db.getRepository(Account).update({ email: address }, { plan });
    if (!result.affected) throw new AccountNotFoundError(`no account for ${address}`);
    return { email: address, plan };
  }
}
