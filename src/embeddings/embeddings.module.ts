import { Module } from '@nestjs/common';
import { AppConfig, CONFIG } from '../config/config';
import { MetricsService } from '../metrics/metrics.service';
import { EMBEDDER, Embedder } from './embedder';
import { OpenAiEmbedder } from './openai.embedder';
import { StaticEmbedder } from './static.embedder';
import { UseLiteEmbedder } from './use-lite.embedder';

export function createEmbedder(config: AppConfig): Embedder {
  if (config.embedder === 'openai') {
    return new OpenAiEmbedder({
      url: config.embeddingsUrl!,
      model: config.embeddingsModel!,
      apiKey: config.embeddingsApiKey,
    });
  }
  if (config.embedder === 'use-lite') return new UseLiteEmbedder();
  return new StaticEmbedder(config.staticModel);
}

/** Times every batch the embedder encodes. */
function timed(embedder: Embedder, metrics: MetricsService): Embedder {
  return {
    get model() {
      return embedder.model;
    },
    get dimensions() {
      return embedder.dimensions;
    },
    get ready() {
      return embedder.ready;
    },
    async embed(texts) {
      const end = metrics.embedderSeconds.startTimer();
      try {
        return await embedder.embed(texts);
      } finally {
        end();
      }
    },
  };
}

@Module({
  providers: [
    {
      provide: EMBEDDER,
      inject: [CONFIG, MetricsService],
      useFactory: (config: AppConfig, metrics: MetricsService) =>
        timed(createEmbedder(config), metrics),
    },
  ],
  exports: [EMBEDDER],
})
export class EmbeddingsModule {}
