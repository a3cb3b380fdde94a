import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccountsRepository } from '../accounts/accounts.repository';

/** Stripe webhook deliveries already applied, so that a redelivery changes nothing twice. */
@Injectable()
export class StripeEventsRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Records the event and runs `apply` on the accounts in the same transaction; an
   * event recorded before is not applied again (`applied: false`). A failure rolls
   * both back, so that Stripe's retry finds the event new.
   */
  once(
    event: { id: string; type: string },
    apply: (accounts: AccountsRepository) => Promise<boolean>,
  ): Promise<{ applied: boolean }> {
    return this.db.transaction(async (tx) => {
      const fresh: unknown[] = await tx.query(
        `INSERT INTO stripe_events (id, type) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id`,
        [event.id, event.type],
      );
      if (!fresh.length) return { applied: false };
      return { applied: await apply(AccountsRepository.within(tx)) };
    });
  }
}
