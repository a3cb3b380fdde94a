import { Module } from '@nestjs/common';
import { CorpusRepository } from './corpus.repository';
import { CorpusService } from './corpus.service';

/** How fresh the store is: its facts, their newest date, the sources' last runs. */
@Module({
  providers: [CorpusRepository, CorpusService],
  exports: [CorpusService],
})
export class CorpusModule {}
