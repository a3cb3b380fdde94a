import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { BillingModule } from '../billing/billing.module';
import { FactsModule } from '../facts/facts.module';
import { ModelsModule } from '../models/models.module';
import { SearchController } from './search.controller';
import { SearchService } from './search.service';

@Module({
  imports: [FactsModule, ModelsModule, AuthModule, BillingModule],
  controllers: [SearchController],
  providers: [SearchService],
  exports: [SearchService],
})
export class SearchModule {}
