import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { FetchError } from '../fetcher';
import { EntityFormatError } from './entities';

/**
 * A local dump's size and modification time, standing in for an ETag: the operator's
 * own downloader refreshes the file, and an unchanged file is not read again.
 */
export async function dumpVersion(path: string): Promise<string> {
  const stats = await stat(path).catch((err: NodeJS.ErrnoException) => {
    throw new FetchError(`cannot read ${path}: ${err.code ?? err.message}`);
  });
  return `"${stats.size}-${Math.floor(stats.mtimeMs)}"`;
}

/**
 * The lines of a local Wikidata dump, gunzipped when its name ends in .gz, streamed
 * so that a dump of any size passes in bounded memory. Its first line must open the
 * array; a file that cannot be read fails with the reason.
 */
export async function* dumpFileLines(path: string): AsyncGenerator<string> {
  const file = createReadStream(path);
  const input = path.endsWith('.gz') ? file.pipe(createGunzip()) : file;
  file.on('error', (err) => input.destroy(err));
  let first = true;
  try {
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      if (first && line.trim()) {
        if (line.trim() !== '[') {
          throw new EntityFormatError(
            'a local Wikidata source must be a JSON dump ("[" on its first line)',
          );
        }
        first = false;
      }
      yield line;
    }
  } catch (err) {
    if (err instanceof EntityFormatError) throw err;
    throw new FetchError(`cannot read ${path}: ${(err as Error).message}`);
  }
}
