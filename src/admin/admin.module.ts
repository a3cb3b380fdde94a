import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AuthModule } from '../auth/auth.module';
import { BillingModule } from '../billing/billing.module';
import { FactsModule } from '../facts/facts.module';
import { SourcesModule } from '../sources/sources.module';
import { AdminController } from './admin.controller';
import { AdminGuard } from './admin.guard';
import { AuditInterceptor } from './audit.interceptor';
import { AuditRepository } from './audit.repository';
import { EventsController } from './events.controller';
import { FactsAdminController } from './facts-admin.controller';
import { SourcesAdminController } from './sources-admin.controller';

@Module({
  imports: [AccountsModule, AuthModule, BillingModule, FactsModule, SourcesModule],
  controllers: [AdminController, FactsAdminController, SourcesAdminController, EventsController],
  providers: [AdminGuard, AuditRepository, AuditInterceptor],
  exports: [AuditRepository],
})
export class AdminModule {}
