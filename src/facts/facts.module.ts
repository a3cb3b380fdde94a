import { Module } from '@nestjs/common';
import { EmbeddingsModule } from '../embeddings/embeddings.module';
import { FactsRepository } from './facts.repository';
import { IngestService } from './ingest.service';
import { MaintenanceRepository } from './maintenance.repository';
import { MaintenanceService } from './maintenance.service';
import { RankingRepository } from './ranking.repository';
import { RetractionsRepository } from './retractions.repository';
import { RetractionsService } from './retractions.service';
import { StatisticsRepository } from './statistics.repository';

@Module({
  imports: [EmbeddingsModule],
  providers: [
    FactsRepository,
    RankingRepository,
    StatisticsRepository,
    MaintenanceRepository,
    MaintenanceService,
    IngestService,
    RetractionsRepository,
    RetractionsService,
  ],
  exports: [
    FactsRepository,
    RankingRepository,
    StatisticsRepository,
    MaintenanceService,
    IngestService,
    RetractionsService,
    EmbeddingsModule,
  ],
})
export class FactsModule {}
