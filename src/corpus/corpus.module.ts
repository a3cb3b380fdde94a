import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { CorpusController } from './corpus.controller';
import { CorpusRepository } from './corpus.repository';
import { CorpusService } from './corpus.service';

/** How fresh the store is: its facts, their newest date, the sources' last runs. */
@Module({
  imports: [AuthModule],
  controllers: [CorpusController],
  providers: [CorpusRepository, CorpusService],
  exports: [CorpusService],
})
export class CorpusModule {}
