import { projectPath } from '../config/config';
import { Embedder, EmbeddingError } from './embedder';
import { StaticModel } from './static/static-model';

/** The shipped static model; `models/README.md` says how it was made. */
export const DEFAULT_STATIC_MODEL = projectPath('models', 'static-use-lite-128.bin');

/**
 * The default encoder: a static model distilled from the Universal Sentence Encoder
 * (tools/distil.ts). A question costs about a tenth of a millisecond
 * on the calling thread, so it needs no worker and never holds up the event loop.
 */
export class StaticEmbedder implements Embedder {
  private loaded?: StaticModel;

  constructor(private readonly path: string = DEFAULT_STATIC_MODEL) {}

  get model(): string {
    return this.load().id;
  }

  get dimensions(): number {
    return this.load().dims;
  }

  get ready(): boolean {
    return this.loaded !== undefined;
  }

  // async so that a refusal is a rejected promise, as with the other encoders
  // eslint-disable-next-line @typescript-eslint/require-await
  async embed(texts: string[]): Promise<Float32Array[]> {
    const model = this.load();
    return texts.map((text) => {
      if (!text.trim()) throw new EmbeddingError('cannot embed an empty text');
      return model.embed(text);
    });
  }

  private load(): StaticModel {
    this.loaded ??= StaticModel.load(this.path);
    return this.loaded;
  }
}
