import { Module } from '@nestjs/common';
import { Clock } from './clock';
import { PlansService } from './plans.service';
import { QuotaService } from './quota.service';
import { UsageRepository } from './usage.repository';

@Module({
  providers: [UsageRepository, QuotaService, Clock, PlansService],
  exports: [QuotaService, UsageRepository, Clock, PlansService],
})
export class BillingModule {}
