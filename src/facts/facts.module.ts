import { Module } from '@nestjs/common';
import { EmbeddingsModule } from '../embeddings/embeddings.module';
import { FactsRepository } from './facts.repository';
import { IngestService } from './ingest.service';
import { RetractionsRepository } from './retractions.repository';
import { RetractionsService } from './retractions.service';

@Module({
  imports: [EmbeddingsModule],
  providers: [FactsRepository, IngestService, RetractionsRepository, RetractionsService],
  exports: [FactsRepository, IngestService, RetractionsService, EmbeddingsModule],
})
export class FactsModule {}
