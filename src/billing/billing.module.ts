import { Module } from '@nestjs/common';
import { Clock } from './clock';
import { AccountsService } from './accounts.service';
import { QuotaService } from './quota.service';
import { UsageRepository } from './usage.repository';

@Module({
  providers: [UsageRepository, QuotaService, Clock, AccountsService],
  exports: [QuotaService, UsageRepository, Clock, AccountsService],
})
export class BillingModule {}
