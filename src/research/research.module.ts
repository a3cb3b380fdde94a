import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { BillingModule } from '../billing/billing.module';
import { SearchModule } from '../search/search.module';
import { ResearchController } from './research.controller';

@Module({
  imports: [SearchModule, AuthModule, BillingModule],
  controllers: [ResearchController],
})
export class ResearchModule {}
