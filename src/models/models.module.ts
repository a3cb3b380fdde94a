import { Module } from '@nestjs/common';
import { ModelCutoffs } from './model-cutoffs';
import { ModelsController } from './models.controller';

@Module({
  controllers: [ModelsController],
  providers: [{ provide: ModelCutoffs, useFactory: () => ModelCutoffs.fromFile() }],
  exports: [ModelCutoffs],
})
export class ModelsModule {}
