import Stripe from 'stripe';

/** A Stripe SDK client, pointed at another API base when the settings say so. */
export function stripeClient(secretKey: string, api?: URL): Stripe.Stripe {
  return Stripe(secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...(api && {
      host: api.hostname,
      port: api.port || (api.protocol === 'http:' ? 80 : 443),
      protocol: api.protocol === 'http:' ? 'http' : 'https',
    }),
  });
}
