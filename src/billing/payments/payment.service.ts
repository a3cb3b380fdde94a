import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { Clock } from '../clock';
import { AdmittedPayment, encode, PaymentChallenges } from './payment-challenges';
import { invalidChallenge, verificationFailed } from './payment-errors';
import { PaymentMethods, ProofRejectedError } from './payment-methods';
import { PaymentSpendsRepository } from './payment-spends.repository';

export const RECEIPT_HEADER = 'Payment-Receipt';

/**
 * Settles an admitted payment around the call it pays for: the challenge id is
 * claimed first (single use, atomic), the call runs, and only an answered call is
 * charged. A call that fails gives the claim back, so the credential can be sent
 * again and nobody pays for an error.
 */
@Injectable()
export class PaymentService {
  constructor(
    private readonly challenges: PaymentChallenges,
    private readonly methods: PaymentMethods,
    private readonly spends: PaymentSpendsRepository,
    private readonly clock: Clock,
  ) {}

  async settled<T>(payment: AdmittedPayment, res: Response, call: () => Promise<T>): Promise<T> {
    const fresh = () => this.challenges.issue(payment.binding);
    const id = payment.credential.challenge.id;
    if (!(await this.spends.claim(id, payment.expiresAt))) {
      throw invalidChallenge(
        'This challenge has been paid and used already; pay a fresh one.',
        fresh(),
      );
    }
    let answer: T;
    try {
      answer = await call();
    } catch (err) {
      await this.spends.release(id);
      throw err;
    }
    let reference: string;
    try {
      ({ reference } = await this.methods
        .get(payment.method)
        .settle(payment.credential, payment.request));
    } catch (err) {
      if (err instanceof ProofRejectedError) throw verificationFailed(err.message, fresh());
      throw err;
    }
    res.set(
      RECEIPT_HEADER,
      encode({
        status: 'success',
        method: payment.method,
        timestamp: this.clock.now().toISOString(),
        reference,
      }),
    );
    // The answer was bought with a credential sent outside Authorization: no shared cache.
    res.set('Cache-Control', 'private');
    if (Math.random() < 0.01) await this.spends.prune();
    return answer;
  }
}
