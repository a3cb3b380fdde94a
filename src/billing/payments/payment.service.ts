import { Injectable } from '@nestjs/common';
import { Clock } from '../clock';
import { AnswerHeaders, Meter, Metered } from '../metering';
import { AdmittedPayment, encode, PaymentChallenges } from './payment-challenges';
import { MetricsService } from '../../metrics/metrics.service';
import { invalidChallenge, PaymentProblemError, verificationFailed } from './payment-errors';
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
    private readonly metrics: MetricsService,
  ) {}

  /** Counts a refused payment by its problem type (the guard's refusals too). */
  refused(error: PaymentProblemError): void {
    this.metrics.payments.inc({ outcome: error.slug });
  }

  /** The meter of a call that `payment` pays for. */
  meterFor(payment: AdmittedPayment): Meter {
    return new PaymentMeter(this, payment);
  }

  /**
   * Runs `call` and charges `payment` for its answer, which goes with the receipt's
   * headers; they are passed to `receipted` as soon as the charge is made.
   */
  async settled<T>(
    payment: AdmittedPayment,
    call: () => Promise<T>,
    receipted: (headers: AnswerHeaders) => void = () => undefined,
  ): Promise<Metered<T>> {
    const fresh = () => this.challenges.issue(payment.binding);
    const id = payment.credential.challenge.id;
    if (!(await this.spends.claim(id, payment.expiresAt))) {
      const used = invalidChallenge(
        'This challenge has been paid and used already; pay a fresh one.',
        fresh(),
      );
      this.refused(used);
      throw used;
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
      if (!(err instanceof ProofRejectedError)) throw err;
      const failed = verificationFailed(err.message, fresh());
      this.refused(failed);
      throw failed;
    }
    const headers = {
      [RECEIPT_HEADER]: encode({
        status: 'success',
        method: payment.method,
        timestamp: this.clock.now().toISOString(),
        reference,
      }),
      // The answer was bought with a credential sent outside Authorization: no shared cache.
      'Cache-Control': 'private',
    };
    receipted(headers);
    this.metrics.payments.inc({ outcome: 'settled' });
    if (Math.random() < 0.01) await this.spends.prune();
    return new Metered(answer, headers);
  }
}

/** One request's payment meter: headers only come with a settled payment. */
class PaymentMeter implements Meter {
  headers: AnswerHeaders = {};

  constructor(
    private readonly payments: PaymentService,
    private readonly payment: AdmittedPayment,
  ) {}

  metered<T>(call: () => Promise<T>): Promise<Metered<T>> {
    return this.payments.settled(this.payment, call, (headers) => (this.headers = headers));
  }
}
