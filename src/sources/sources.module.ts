import { Module } from '@nestjs/common';
import { FactsModule } from '../facts/facts.module';
import { SourcesRepository } from './sources.repository';
import { SourcesService } from './sources.service';
import { SourcesWorker } from './sources.worker';

/** Upstream sources: registration, polite fetching, extractors, and the worker. */
@Module({
  imports: [FactsModule],
  providers: [SourcesRepository, SourcesService, SourcesWorker],
  exports: [SourcesService, SourcesWorker],
})
export class SourcesModule {}
