import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Spent challenge ids: the single-use check of payment credentials, shared by every replica. */
@Injectable()
export class PaymentSpendsRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Claims `challengeId` for one settlement. One INSERT decides, so that of two
   * concurrent copies of a credential exactly one gets true.
   */
  async claim(challengeId: string, expiresAt: Date): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `INSERT INTO payment_spends (challenge_id, expires_at) VALUES ($1, $2)
       ON CONFLICT (challenge_id) DO NOTHING RETURNING challenge_id`,
      [challengeId, expiresAt],
    );
    return rows.length === 1;
  }

  /** Gives a claim back when the call it paid for could not be answered (nothing was charged). */
  async release(challengeId: string): Promise<void> {
    await this.db.query(`DELETE FROM payment_spends WHERE challenge_id = $1`, [challengeId]);
  }

  /** Ids of long-expired challenges can go: their credentials fail the expiry check first. */
  async prune(): Promise<void> {
    await this.db.query(`DELETE FROM payment_spends WHERE expires_at < now() - interval '1 day'`);
  }
}
