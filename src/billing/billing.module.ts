import { Module } from '@nestjs/common';
import { Clock } from './clock';
import { AccountsService } from './accounts.service';
import { QuotaService } from './quota.service';
import { StripeBillingService } from './stripe-billing.service';
import { StripeWebhookController } from './stripe-webhook.controller';
import { UsageRepository } from './usage.repository';

@Module({
  controllers: [StripeWebhookController],
  providers: [UsageRepository, QuotaService, Clock, AccountsService, StripeBillingService],
  exports: [QuotaService, UsageRepository, Clock, AccountsService, StripeBillingService],
})
export class BillingModule {}
