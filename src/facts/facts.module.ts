import { Module } from '@nestjs/common';
import { EmbeddingsModule } from '../embeddings/embeddings.module';
import { FactsRepository } from './facts.repository';
import { IngestService } from './ingest.service';

@Module({
  imports: [EmbeddingsModule],
  providers: [FactsRepository, IngestService],
  exports: [FactsRepository, IngestService, EmbeddingsModule],
})
export class FactsModule {}
