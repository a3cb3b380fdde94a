import { DomainError } from '../../common/problem';

/** Problem types of the Payment scheme are the draft's own URIs, so payment clients know them. */
export const PAYMENT_PROBLEM_BASE = 'https://paymentauth.org/problems/';

/**
 * A refused or missing payment: 402 with a fresh challenge per accepted method, and
 * never a cached copy.
 */
export class PaymentProblemError extends DomainError {
  constructor(slug: string, title: string, detail: string, challenges: string[]) {
    super(
      slug,
      title,
      detail,
      {},
      {
        'WWW-Authenticate': challenges,
        'Cache-Control': 'no-store',
      },
    );
  }

  override get type(): string {
    return PAYMENT_PROBLEM_BASE + this.slug;
  }
}

export const paymentRequired = (challenges: string[]) =>
  new PaymentProblemError(
    'payment-required',
    'Payment required',
    'Send Authorization: Bearer <API_KEY>, or pay for this search as a WWW-Authenticate ' +
      'challenge offers and repeat the request with the credential in Payment-Authorization.',
    challenges,
  );

export const malformedCredential = (reason: string, challenges: string[]) =>
  new PaymentProblemError(
    'malformed-credential',
    'Malformed payment credential',
    `Payment-Authorization must be "Payment <base64url JSON>" with the challenge echoed and a payload: ${reason}.`,
    challenges,
  );

export const invalidChallenge = (reason: string, challenges: string[]) =>
  new PaymentProblemError('invalid-challenge', 'Invalid challenge', reason, challenges);

export const paymentExpired = (expires: string, challenges: string[]) =>
  new PaymentProblemError(
    'payment-expired',
    'Challenge expired',
    `The challenge expired at ${expires}; pay the fresh one.`,
    challenges,
  );

export const verificationFailed = (reason: string, challenges: string[]) =>
  new PaymentProblemError('verification-failed', 'Payment not verified', reason, challenges);
