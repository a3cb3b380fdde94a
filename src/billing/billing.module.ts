import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AuthModule } from '../auth/auth.module';
import { Clock } from './clock';
import { PaymentChallenges } from './payments/payment-challenges';
import { PaymentGuard } from './payments/payment.guard';
import { PaymentMethods } from './payments/payment-methods';
import { PaymentService } from './payments/payment.service';
import { PaymentSpendsRepository } from './payments/payment-spends.repository';
import { MeteredInterceptor } from './metering';
import { QuotaGuard } from './quota.guard';
import { QuotaService } from './quota.service';
import { StripeBillingService } from './stripe-billing.service';
import { StripeEventsRepository } from './stripe-events.repository';
import { StripeWebhookController } from './stripe-webhook.controller';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';

@Module({
  imports: [AccountsModule, AuthModule],
  controllers: [StripeWebhookController],
  providers: [
    UsageRepository,
    UsageService,
    QuotaService,
    QuotaGuard,
    MeteredInterceptor,
    Clock,
    StripeBillingService,
    StripeEventsRepository,
    PaymentChallenges,
    PaymentMethods,
    PaymentSpendsRepository,
    PaymentService,
    PaymentGuard,
  ],
  exports: [
    QuotaService,
    QuotaGuard,
    MeteredInterceptor,
    UsageRepository,
    UsageService,
    Clock,
    StripeBillingService,
    PaymentChallenges,
    PaymentService,
    PaymentGuard,
  ],
})
export class BillingModule {}
