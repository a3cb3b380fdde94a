/**
 * The framing of freshfacts' binary files (vector files, static models): one line of
 * JSON saying what follows, then the binary body.
 */
export function headered(header: unknown, ...body: Buffer[]): Buffer {
  return Buffer.concat([Buffer.from(JSON.stringify(header) + '\n'), ...body]);
}

/** Splits a file made by `headered`; the caller checks the header's fields. */
export function unheadered<T>(file: Buffer): { header: T; body: Buffer } {
  const newline = file.indexOf(10);
  return {
    header: JSON.parse(file.subarray(0, newline).toString('utf8')) as T,
    body: file.subarray(newline + 1),
  };
}
