import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig, CONFIG } from '../config/config';
import { closeDataSource, openDataSource } from './data-source';
import { ReadReplicas } from './read-replicas';

@Global()
@Module({
  providers: [
    {
      provide: DataSource,
      inject: [CONFIG],
      useFactory: (config: AppConfig) => openDataSource(config),
    },
    ReadReplicas,
  ],
  exports: [DataSource, ReadReplicas],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    await closeDataSource(this.dataSource);
  }
}
