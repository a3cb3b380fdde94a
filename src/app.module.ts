import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { Account } from './accounts/account.entity';
import { AdminModule } from './admin/admin.module';
import { ApiKey } from './auth/api-key.entity';
import { AuthModule } from './auth/auth.module';
import { loggingOptions } from './common/logging';
import { Config } from './config/config';
import { ConfigModule } from './config/config.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { CorpusModule } from './corpus/corpus.module';
import { DatabaseModule } from './database/database.module';
import { Fact } from './facts/fact.entity';
import { FactsModule } from './facts/facts.module';
import { HealthModule } from './health/health.controller';
import { McpModule } from './mcp/mcp.module';
import { MetricsModule } from './metrics/metrics.module';
import { ModelsModule } from './models/models.module';
import { ResearchModule } from './research/research.module';
import { SearchModule } from './search/search.module';
import { SourcesModule } from './sources/sources.module';

/** The tables TypeORM maps to classes; the rest is spoken in SQL by the repositories. */
const ENTITIES = [Fact, Account, ApiKey];

/** The whole service, built from one config so that tests pass their own. */
@Module({})
export class AppModule {
  static forRoot(config: Config): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(loggingOptions(config)),
        MetricsModule,
        DatabaseModule.forRoot(ENTITIES),
        FactsModule,
        CorpusModule,
        ModelsModule,
        AuthModule,
        SearchModule,
        ResearchModule,
        McpModule,
        HealthModule,
        AdminModule,
        DashboardModule,
        SourcesModule,
      ],
    };
  }
}
