import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig, CONFIG } from '../config/config';
import { closeDataSource, EntityList, openDataSource } from './data-source';
import { ReadReplicas } from './read-replicas';

/**
 * The connection, for the entities the app module names: the database is the bottom
 * layer and knows no feature's entity (docs/architecture.md).
 */
@Global()
@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  static forRoot(entities: EntityList): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: DataSource,
          inject: [CONFIG],
          useFactory: (config: AppConfig) => openDataSource(config, entities),
        },
        ReadReplicas,
      ],
      exports: [DataSource, ReadReplicas],
    };
  }

  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    await closeDataSource(this.dataSource);
  }
}
