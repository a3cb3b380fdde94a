import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { BillingModule } from '../billing/billing.module';
import { CorpusModule } from '../corpus/corpus.module';
import { SearchModule } from '../search/search.module';
import { FactTools } from './fact-tools';
import { McpController } from './mcp.controller';

/** The fact tools for agents over the Model Context Protocol (POST /mcp; stdio in the CLI). */
@Module({
  imports: [SearchModule, AuthModule, BillingModule, CorpusModule],
  controllers: [McpController],
  providers: [FactTools],
  exports: [FactTools],
})
export class McpModule {}
