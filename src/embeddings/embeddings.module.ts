import { Module } from '@nestjs/common';
import { AppConfig, CONFIG } from '../config/config';
import { EMBEDDER, Embedder } from './embedder';
import { OpenAiEmbedder } from './openai.embedder';
import { UseLiteEmbedder } from './use-lite.embedder';

export function createEmbedder(config: AppConfig): Embedder {
  if (config.embedder === 'openai') {
    return new OpenAiEmbedder({
      url: config.embeddingsUrl!,
      model: config.embeddingsModel!,
      apiKey: config.embeddingsApiKey,
    });
  }
  return new UseLiteEmbedder();
}

@Module({
  providers: [{ provide: EMBEDDER, inject: [CONFIG], useFactory: createEmbedder }],
  exports: [EMBEDDER],
})
export class EmbeddingsModule {}
