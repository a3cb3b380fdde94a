/** pgvector's text form of a vector, for statements that take vectors as text. */
export function vectorLiteral(vector: Float32Array): string {
  return `[${Array.from(vector).join(',')}]`;
}
