import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { headered, unheadered } from '../../common/headered-file';
import { Pieces } from './pieces';

const FORMAT = 'freshfacts-static-1';

/**
 * A static sentence model: a vector and a weight per vocabulary piece. A sentence is
 * the weighted mean of its pieces' vectors, less the corpus centre, at unit length.
 *
 * File: one JSON header line, then float32 weights (one per piece), float32 centre
 * (`dims`), and the table as int16 scaled by `scale` (pieces × dims), little-endian.
 */
export class StaticModel {
  constructor(
    readonly pieces: Pieces,
    readonly dims: number,
    private readonly weights: Float32Array,
    private readonly table: Float32Array,
    private readonly center: Float32Array,
    /** Names the file's content, so vectors made by another fit are never mixed in. */
    readonly id = 'unsaved',
  ) {}

  embed(text: string): Float32Array {
    const ids = this.pieces.encode(text);
    const out = new Float32Array(this.dims);
    let total = 0;
    for (const id of ids) {
      const w = this.weights[id];
      total += w;
      const at = id * this.dims;
      for (let d = 0; d < this.dims; d++) out[d] += w * this.table[at + d];
    }
    let norm = 0;
    for (let d = 0; d < this.dims; d++) {
      out[d] = out[d] / (total || 1) - this.center[d];
      norm += out[d] * out[d];
    }
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < this.dims; d++) out[d] /= norm;
    return out;
  }

  save(path: string, recipe: Record<string, unknown>): void {
    const scale = this.table.reduce((m, x) => Math.max(m, Math.abs(x)), 0) / 32767 || 1;
    const table = Int16Array.from(this.table, (x) => Math.round(x / scale));
    const header = { format: FORMAT, dims: this.dims, pieces: this.pieces.size, scale, recipe };
    writeFileSync(
      path,
      headered(
        header,
        Buffer.from(this.weights.buffer, this.weights.byteOffset, this.weights.byteLength),
        Buffer.from(this.center.buffer, this.center.byteOffset, this.center.byteLength),
        Buffer.from(table.buffer),
      ),
    );
  }

  static load(path: string, pieces: Pieces = Pieces.fromPackage()): StaticModel {
    const file = readFileSync(path);
    const { header, body } = unheadered<{
      format: string;
      dims: number;
      pieces: number;
      scale: number;
    }>(file);
    if (header.format !== FORMAT || header.pieces !== pieces.size)
      throw new Error(`${path} is not a static model for this vocabulary`);
    const copy = (offset: number, bytes: number) =>
      body.buffer.slice(body.byteOffset + offset, body.byteOffset + offset + bytes);
    const V = header.pieces;
    const D = header.dims;
    const weights = new Float32Array(copy(0, V * 4));
    const center = new Float32Array(copy(V * 4, D * 4));
    const raw = new Int16Array(copy(V * 4 + D * 4, V * D * 2));
    const table = Float32Array.from(raw, (x) => x * header.scale);
    const hash = createHash('sha256').update(file).digest('hex').slice(0, 8);
    return new StaticModel(pieces, D, weights, table, center, `static-use-lite-${D}-${hash}`);
  }
}
