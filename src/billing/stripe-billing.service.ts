import { Inject, Injectable, Logger } from '@nestjs/common';
import type Stripe from 'stripe';
import { AccountMatch, AccountsRepository, StripeIds } from '../accounts/accounts.repository';
import type { PlanName } from '../accounts/plans';
import { DomainError } from '../common/problem';
import { AppConfig, CONFIG, StripeSettings } from '../config/config';
import { stripeClient } from './stripe-client';
import { StripeEventsRepository } from './stripe-events.repository';

export class BillingNotConfiguredError extends DomainError {
  constructor() {
    super(
      'billing-not-configured',
      'No billing provider',
      'This server takes no payments; an operator upgrades accounts with ' +
        '`freshfacts accounts set-plan EMAIL paid`.',
    );
  }
}

export class InvalidWebhookSignatureError extends DomainError {
  constructor(detail: string) {
    super('invalid-webhook-signature', 'Webhook signature not valid', detail);
  }
}

export class BillingProviderError extends DomainError {
  constructor(detail: string) {
    super('billing-provider-error', 'The billing provider failed', detail);
  }
}

/** Subscription states in which the customer keeps the paid plan (past_due: Stripe is retrying). */
const PAID_STATUSES = new Set(['active', 'trialing', 'past_due']);
/** States after which the subscription will not pay again. */
const ENDED_STATUSES = new Set(['canceled', 'unpaid', 'incomplete_expired']);

/**
 * Upgrades through Stripe: a Checkout session sells the subscription, and the
 * webhook, whose signature is checked against the raw body, flips the plan.
 */
@Injectable()
export class StripeBillingService {
  private readonly logger = new Logger('Stripe');
  private readonly settings?: StripeSettings;
  private readonly stripe?: Stripe.Stripe;

  constructor(
    @Inject(CONFIG) private readonly config: AppConfig,
    private readonly accounts: AccountsRepository,
    private readonly events: StripeEventsRepository,
  ) {
    this.settings = config.stripe;
    if (!this.settings) return;
    this.stripe = stripeClient(this.settings.secretKey, this.settings.apiUrl);
  }

  get enabled(): boolean {
    return Boolean(this.stripe);
  }

  /** The URL of a Checkout page that subscribes `account` to the paid plan. */
  async checkoutUrl(account: { accountId: string; email: string }): Promise<string> {
    const { stripe, settings } = this.require();
    const billing = `${this.config.publicUrl}/dashboard/billing`;
    const customer = await this.customerOf(account.accountId);
    const session = await this.call(() =>
      stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: settings.priceId, quantity: 1 }],
        client_reference_id: account.accountId,
        ...(customer ? { customer } : { customer_email: account.email }),
        // Subscription events find the account by this when the subscription is not yet stored.
        subscription_data: { metadata: { account_id: account.accountId } },
        success_url: `${billing}?checkout=success`,
        cancel_url: `${billing}?checkout=cancelled`,
      }),
    );
    if (!session.url) throw new BillingProviderError('Stripe returned a session without a URL');
    return session.url;
  }

  /** Stripe's customer portal for `account`, where it cancels or changes its card. */
  async portalUrl(accountId: string): Promise<string> {
    const { stripe } = this.require();
    const customer = await this.customerOf(accountId);
    if (!customer) throw new BillingProviderError('this account has no Stripe customer yet');
    const portal = await this.call(() =>
      stripe.billingPortal.sessions.create({
        customer,
        return_url: `${this.config.publicUrl}/dashboard/billing`,
      }),
    );
    return portal.url;
  }

  /**
   * Verifies and applies one webhook delivery. A delivery seen before is acknowledged
   * and skipped; the plan change and the record of the event commit together, so a
   * failure leaves Stripe to retry.
   */
  async handleWebhook(body: unknown, signature: string | undefined): Promise<{ applied: boolean }> {
    const { stripe, settings } = this.require();
    if (!Buffer.isBuffer(body) || !body.length) {
      throw new InvalidWebhookSignatureError('the request has no body');
    }
    if (!signature)
      throw new InvalidWebhookSignatureError('the Stripe-Signature header is missing');
    let event: Stripe.Event;
    try {
      event = stripe.webhooks.constructEvent(body, signature, settings.webhookSecret);
    } catch (err) {
      throw new InvalidWebhookSignatureError((err as Error).message);
    }
    return this.events.once(event, (accounts) => this.apply(accounts, event));
  }

  private async apply(accounts: AccountsRepository, event: Stripe.Event): Promise<boolean> {
    switch (event.type) {
      case 'checkout.session.completed': {
        const session = event.data.object;
        if (session.mode !== 'subscription' || !session.client_reference_id) return false;
        if (!/^\d{1,18}$/.test(session.client_reference_id)) return false;
        return this.update(accounts, { id: session.client_reference_id }, 'paid', {
          stripeCustomerId: idOf(session.customer),
          stripeSubscriptionId: idOf(session.subscription),
        });
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted': {
        const subscription = event.data.object;
        const status =
          event.type === 'customer.subscription.deleted' ? 'canceled' : subscription.status;
        const plan: PlanName | undefined = PAID_STATUSES.has(status)
          ? 'paid'
          : ENDED_STATUSES.has(status)
            ? 'free'
            : undefined;
        if (!plan) return false;
        const owner = subscription.metadata?.account_id;
        const where = { stripeSubscriptionId: subscription.id };
        const matched = await this.update(accounts, where, plan, {
          stripeCustomerId: idOf(subscription.customer),
        });
        if (matched || !owner || !/^\d{1,18}$/.test(owner) || plan === 'free') return matched;
        return this.update(accounts, { id: owner }, plan, {
          stripeCustomerId: idOf(subscription.customer),
          stripeSubscriptionId: subscription.id,
        });
      }
      default:
        return false;
    }
  }

  private async update(
    accounts: AccountsRepository,
    where: AccountMatch,
    plan: PlanName,
    ids: StripeIds,
  ): Promise<boolean> {
    const known = Object.fromEntries(Object.entries(ids).filter(([, value]) => value));
    const matched = await accounts.setPlan(where, plan, known);
    if (!matched) this.logger.warn(`no account matches ${JSON.stringify(where)}`);
    return matched;
  }

  private async customerOf(accountId: string): Promise<string | undefined> {
    const account = await this.accounts.findById(accountId);
    return account?.stripeCustomerId ?? undefined;
  }

  private require(): { stripe: Stripe.Stripe; settings: StripeSettings } {
    if (!this.stripe || !this.settings) throw new BillingNotConfiguredError();
    return { stripe: this.stripe, settings: this.settings };
  }

  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (err) {
      this.logger.error(`Stripe API call failed: ${(err as Error).message}`);
      throw new BillingProviderError(`Stripe did not answer: ${(err as Error).message}`);
    }
  }
}

function idOf(value: string | { id: string } | null | undefined): string | undefined {
  if (!value) return undefined;
  return typeof value === 'string' ? value : value.id;
}
