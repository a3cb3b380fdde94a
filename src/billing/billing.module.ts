import { Module } from '@nestjs/common';
import { AccountsRepository } from '../auth/accounts.repository';
import { Clock } from './clock';
import { AccountsService } from './accounts.service';
import { PaymentChallenges } from './payments/payment-challenges';
import { PaymentMethods } from './payments/payment-methods';
import { PaymentService } from './payments/payment.service';
import { PaymentSpendsRepository } from './payments/payment-spends.repository';
import { QuotaService } from './quota.service';
import { StripeBillingService } from './stripe-billing.service';
import { StripeEventsRepository } from './stripe-events.repository';
import { StripeWebhookController } from './stripe-webhook.controller';
import { UsageRepository } from './usage.repository';

@Module({
  controllers: [StripeWebhookController],
  providers: [
    UsageRepository,
    QuotaService,
    Clock,
    AccountsRepository,
    AccountsService,
    StripeBillingService,
    StripeEventsRepository,
    PaymentChallenges,
    PaymentMethods,
    PaymentSpendsRepository,
    PaymentService,
  ],
  exports: [
    QuotaService,
    UsageRepository,
    Clock,
    AccountsService,
    StripeBillingService,
    PaymentChallenges,
    PaymentService,
  ],
})
export class BillingModule {}
