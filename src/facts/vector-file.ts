import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { headered, unheadered } from '../common/headered-file';

/**
 * Precomputed embeddings that ship beside a JSON Lines file (`FILE.vectors`), so a
 * new install does not spend minutes in the encoder. Vectors are keyed by a hash
 * of the embedded text and stored as int16 (unit vectors lose nothing that ranking
 * can see at 1/32767 resolution).
 *
 * Layout: one JSON header line `{"model","dimensions","count"}`, then `count`
 * records of a 16-byte SHA-256 prefix and `dimensions` little-endian int16.
 */
export class VectorFile {
  private constructor(
    readonly model: string,
    private readonly vectors: Map<string, Float32Array>,
  ) {}

  static pathFor(jsonlPath: string): string {
    return jsonlPath.replace(/\.jsonl$/, '') + '.vectors';
  }

  /** Reads the file beside `jsonlPath` when it exists and was made by `model`. */
  static load(jsonlPath: string, model: string): VectorFile | undefined {
    const path = VectorFile.pathFor(jsonlPath);
    if (!existsSync(path)) return undefined;
    const { header, body } = unheadered<{ model: string; dimensions: number; count: number }>(
      readFileSync(path),
    );
    if (header.model !== model) return undefined;
    const vectors = new Map<string, Float32Array>();
    const record = 16 + 2 * header.dimensions;
    for (let i = 0; i < header.count; i++) {
      const at = i * record;
      const vector = new Float32Array(header.dimensions);
      for (let d = 0; d < header.dimensions; d++) {
        vector[d] = body.readInt16LE(at + 16 + 2 * d) / 32767;
      }
      vectors.set(body.subarray(at, at + 16).toString('hex'), vector);
    }
    return new VectorFile(model, vectors);
  }

  static write(jsonlPath: string, model: string, entries: [string, Float32Array][]): string {
    const dimensions = entries[0]?.[1].length ?? 0;
    const record = 16 + 2 * dimensions;
    const body = Buffer.alloc(entries.length * record);
    entries.forEach(([text, vector], i) => {
      textKey(text).copy(body, i * record);
      vector.forEach((x, d) => body.writeInt16LE(Math.round(x * 32767), i * record + 16 + 2 * d));
    });
    const path = VectorFile.pathFor(jsonlPath);
    writeFileSync(path, headered({ model, dimensions, count: entries.length }, body));
    return path;
  }

  get(text: string): Float32Array | undefined {
    return this.vectors.get(textKey(text).toString('hex'));
  }
}

function textKey(text: string): Buffer {
  return createHash('sha256').update(text).digest().subarray(0, 16);
}
