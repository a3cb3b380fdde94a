import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager, QueryFailedError, Repository } from 'typeorm';
import type { PlanName } from './plans';
import { Account } from './account.entity';

/** Where a plan change finds its account: by id, or by the Stripe subscription it pays for. */
export type AccountMatch = { id: string } | { stripeSubscriptionId: string };

export type StripeIds = Partial<Pick<Account, 'stripeCustomerId' | 'stripeSubscriptionId'>>;

/** The only code that speaks SQL to the accounts table. */
@Injectable()
export class AccountsRepository {
  private readonly accounts: Repository<Account>;

  constructor(
    @Inject(DataSource) private readonly db: Pick<EntityManager, 'getRepository' | 'query'>,
  ) {
    this.accounts = db.getRepository(Account);
  }

  /** The same repository inside a transaction another repository opened. */
  static within(tx: EntityManager): AccountsRepository {
    return new AccountsRepository(tx);
  }

  list(): Promise<Account[]> {
    return this.accounts.find({ order: { createdAt: 'ASC' } });
  }

  findByEmail(email: string): Promise<Account | null> {
    return this.accounts.findOneBy({ email });
  }

  findById(id: string): Promise<Account | null> {
    return this.accounts.findOneBy({ id });
  }

  /** The account with its password hash, which is otherwise never selected. */
  findWithPassword(email: string): Promise<Account | null> {
    return this.accounts
      .createQueryBuilder('account')
      .addSelect('account.passwordHash')
      .where('account.email = :email', { email })
      .getOne();
  }

  /** Inserts a new account; undefined when one with this email exists. */
  async insert(
    fields: Pick<Account, 'email' | 'plan'> & Partial<Pick<Account, 'passwordHash'>>,
  ): Promise<Account | undefined> {
    try {
      await this.accounts.insert(fields);
    } catch (err) {
      if (err instanceof QueryFailedError && /accounts_email/.test(err.message)) return undefined;
      throw err;
    }
    return this.accounts.findOneByOrFail({ email: fields.email });
  }

  /** The account of `email`, made on the free plan when there is none. */
  async ensure(email: string): Promise<Account> {
    await this.db.query(
      `INSERT INTO accounts (email) VALUES ($1) ON CONFLICT ON CONSTRAINT accounts_email DO NOTHING`,
      [email],
    );
    return this.accounts.findOneByOrFail({ email });
  }

  /** Sets the plan (and any Stripe ids given) of the matching account; false when none matches. */
  async setPlan(where: AccountMatch | { email: string }, plan: PlanName, ids: StripeIds = {}) {
    const result = await this.accounts.update(where, { plan, ...ids });
    return Boolean(result.affected);
  }
}
