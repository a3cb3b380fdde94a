import { DynamicModule, Global, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { AdminModule } from './admin/admin.module';
import { AuthModule } from './auth/auth.module';
import { loggingOptions } from './common/logging';
import { AppConfig, CONFIG } from './config/config';
import { DashboardModule } from './dashboard/dashboard.module';
import { CorpusModule } from './corpus/corpus.module';
import { DatabaseModule } from './database/database.module';
import { FactsModule } from './facts/facts.module';
import { HealthModule } from './health/health.controller';
import { McpModule } from './mcp/mcp.module';
import { MetricsModule } from './metrics/metrics.module';
import { ModelsModule } from './models/models.module';
import { ResearchModule } from './research/research.module';
import { SearchModule } from './search/search.module';
import { SourcesModule } from './sources/sources.module';

@Global()
@Module({})
class ConfigModule {
  static with(config: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: CONFIG, useValue: config }],
      exports: [CONFIG],
    };
  }
}

/** The whole service, built from one config so that tests pass their own. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.with(config),
        LoggerModule.forRoot(loggingOptions(config)),
        MetricsModule,
        DatabaseModule,
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
