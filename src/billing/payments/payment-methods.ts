import { Inject, Injectable, Logger } from '@nestjs/common';
import type Stripe from 'stripe';
import { importEsm } from '../../common/esm';
import { AppConfig, CONFIG, PaymentMethodName } from '../../config/config';
import { stripeClient } from '../stripe-client';
import type { ChargeRequest, PaymentCredential } from './payment-challenges';

/** Thrown by a method whose proof does not pay what the challenge asked. */
export class ProofRejectedError extends Error {}

/** Checks a credential's proof and moves the money; answers the receipt's reference. */
export interface PaymentMethod {
  readonly name: PaymentMethodName;
  settle(credential: PaymentCredential, request: ChargeRequest): Promise<{ reference: string }>;
}

/**
 * For local development only, and named "test" in every challenge: the payload
 * `{"amount", "currency"}` must repeat the price. No money moves.
 */
export class TestPaymentMethod implements PaymentMethod {
  readonly name = 'test';

  settle(credential: PaymentCredential, request: ChargeRequest): Promise<{ reference: string }> {
    const { amount, currency } = credential.payload;
    if (amount !== request.amount || currency !== request.currency) {
      throw new ProofRejectedError(
        `The test payment is ${String(amount)} ${String(currency)}; this search costs ` +
          `${request.amount} ${request.currency}.`,
      );
    }
    return Promise.resolve({ reference: `test_${credential.challenge.id.slice(0, 16)}` });
  }
}

/** The part of mppx's Stripe server method that is used here (mppx ships no CommonJS types). */
interface MppxStripeCharge {
  verify(parameters: {
    credential: PaymentCredential;
    request: ChargeRequest;
  }): Promise<{ reference: string }>;
}
interface MppxServer {
  stripe: {
    charge(parameters: {
      client: Stripe.Stripe;
      networkId: string;
      currency: string;
      decimals: number;
      paymentMethodTypes: string[];
    }): MppxStripeCharge;
  };
}

/**
 * Stripe shared payment tokens (SPT), settled by mppx's Stripe method: it turns the
 * token into a confirmed PaymentIntent, idempotent per challenge, through the Stripe
 * SDK client configured here.
 */
export class StripePaymentMethod implements PaymentMethod {
  readonly name = 'stripe';
  private method?: Promise<MppxStripeCharge>;

  constructor(
    private readonly client: Stripe.Stripe,
    private readonly networkId: string,
    private readonly currency: string,
  ) {}

  async settle(
    credential: PaymentCredential,
    request: ChargeRequest,
  ): Promise<{ reference: string }> {
    this.method ??= (importEsm('mppx/server') as Promise<MppxServer>).then((mppx) =>
      mppx.stripe.charge({
        client: this.client,
        networkId: this.networkId,
        currency: this.currency,
        decimals: 2,
        paymentMethodTypes: ['card'],
      }),
    );
    try {
      const receipt = await (await this.method).verify({ credential, request });
      return { reference: receipt.reference };
    } catch (err) {
      throw new ProofRejectedError((err as Error).message);
    }
  }
}

/** The accepted methods, by name, as the settings list them. */
@Injectable()
export class PaymentMethods {
  private readonly logger = new Logger('Payments');
  private readonly methods = new Map<PaymentMethodName, PaymentMethod>();

  constructor(@Inject(CONFIG) config: AppConfig) {
    const settings = config.payments;
    if (!settings) return;
    if (settings.methods.includes('test')) {
      this.methods.set('test', new TestPaymentMethod());
      this.logger.warn('the "test" payment method is on: searches can be paid without money');
    }
    if (settings.methods.includes('stripe') && config.stripe && settings.stripeNetworkId) {
      this.methods.set(
        'stripe',
        new StripePaymentMethod(
          stripeClient(config.stripe.secretKey, config.stripe.apiUrl),
          settings.stripeNetworkId,
          settings.currency,
        ),
      );
    }
  }

  get(name: PaymentMethodName): PaymentMethod {
    const method = this.methods.get(name);
    if (!method) throw new Error(`payment method ${name} is not configured`);
    return method;
  }
}
