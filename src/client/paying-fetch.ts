/**
 * Pays for freshfacts searches the way an agent would: a fetch that, on a 402
 * payment challenge, pays with one of its payers and repeats the request with the
 * credential in Payment-Authorization. Built on mppx, the Machine Payments
 * Protocol's own client.
 *
 * ```ts
 * import { payingFetch, testPayer } from 'freshfacts/client';
 * const fetch = await payingFetch([testPayer()]);
 * const res = await fetch('http://127.0.0.1:8080/v1/search', {
 *   method: 'POST',
 *   headers: { 'content-type': 'application/json' },
 *   body: JSON.stringify({ query: 'Who coaches Panathinaikos?' }),
 * });
 * console.log(res.headers.get('payment-receipt'), await res.json());
 * ```
 */
export async function payingFetch(payers: Payer[]): Promise<typeof fetch> {
  // Loaded on first use: it builds a function from a string, which edge runtimes refuse,
  // so a client that never pays must not load it.
  const { importEsm } = await import('../common/esm');
  // One after the other: Jest's ES module linker trips over two concurrent first loads.
  const core = (await importEsm('mppx')) as MppxCore;
  const client = (await importEsm('mppx/client')) as MppxClient;
  const methods = payers.map((payer) => payer.toMppx(core, client));
  return client.Mppx.create({ methods, polyfill: false }).fetch;
}

/** Pays with one payment method. */
export interface Payer {
  readonly method: string;
  /** An mppx client method (internal). */
  toMppx(core: MppxCore, client: MppxClient): unknown;
}

/**
 * The `test` method of a freshfacts server that enables it: no money moves, the
 * payload repeats the price. For local development.
 */
export function testPayer(): Payer {
  return {
    method: 'test',
    toMppx(core) {
      const { z } = core;
      const definition = core.Method.from({
        name: 'test',
        intent: 'charge',
        schema: {
          credential: { payload: z.object({ amount: z.string(), currency: z.string() }) },
          request: z.object({ amount: z.string(), currency: z.string(), recipient: z.string() }),
        },
      });
      return core.Method.toClient(definition, {
        createCredential: ({ challenge }: { challenge: MppxChallenge }) =>
          core.Credential.serialize({
            challenge,
            payload: { amount: challenge.request.amount, currency: challenge.request.currency },
          }),
      });
    },
  };
}

/**
 * Stripe: `createToken` gets the amount, currency and network of the challenge and
 * the payer's PaymentMethod, and returns a shared payment token (SPT) granted to
 * the service's Stripe profile.
 */
export function stripePayer(options: {
  /** The payer's Stripe PaymentMethod, e.g. `pm_…`. */
  paymentMethod: string;
  createToken(offer: StripeOffer): Promise<string>;
}): Payer {
  return {
    method: 'stripe',
    toMppx(_core, client) {
      return client.stripe.charge(options);
    },
  };
}

export interface StripeOffer {
  amount: string;
  currency: string;
  networkId: string;
  paymentMethod: string;
  expiresAt: number;
}

// The parts of mppx (ES modules only, without CommonJS types) that this file uses.
interface MppxChallenge {
  id: string;
  request: { amount: string; currency: string };
}
interface ZodMini {
  object(shape: Record<string, unknown>): unknown;
  string(): unknown;
}
export interface MppxCore {
  z: ZodMini;
  Method: {
    from(definition: {
      name: string;
      intent: string;
      schema: { credential: { payload: unknown }; request: unknown };
    }): unknown;
    toClient(
      definition: unknown,
      options: { createCredential(context: { challenge: MppxChallenge }): string },
    ): unknown;
  };
  Credential: {
    serialize(credential: { challenge: MppxChallenge; payload: Record<string, unknown> }): string;
  };
}
export interface MppxClient {
  Mppx: { create(options: { methods: unknown[]; polyfill: false }): { fetch: typeof fetch } };
  stripe: {
    charge(options: {
      paymentMethod: string;
      createToken(offer: StripeOffer): Promise<string>;
    }): unknown;
  };
}
