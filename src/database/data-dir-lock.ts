import { closeSync, openSync, readFileSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSetupError } from './errors';

/**
 * One process at a time may open an embedded database: PGlite has no locking of its
 * own, and two writers would corrupt it. A lock file holds the owner's pid; a lock
 * left by a process that no longer runs (killed, crashed) is taken over.
 */
export class DataDirLock {
  private constructor(private readonly path: string) {}

  static acquire(dir: string): DataDirLock {
    const path = join(dir, 'freshfacts.lock');
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, 'wx');
        writeSync(fd, String(process.pid));
        closeSync(fd);
        return new DataDirLock(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const owner = Number(readFileSync(path, 'utf8'));
        if (isRunning(owner)) {
          throw new DatabaseSetupError(
            `the embedded database in ${dir} is in use by process ${owner} (a running ` +
              '`freshfacts serve`?). Stop it first, or point DATABASE_URL at a PostgreSQL server ' +
              'that several processes can share.' +
              (owner === DataDirLock.server(dir)?.pid ? ADMIN_WAY_OUT : ''),
          );
        }
        unlinkSync(path);
      }
    }
    throw new DatabaseSetupError(`could not lock ${dir}`);
  }

  release(): void {
    for (const path of [serverFile(dirname(this.path)), this.path]) {
      try {
        unlinkSync(path);
      } catch {
        // Already gone: nothing to release.
      }
    }
  }

  /** The process that holds `dir`, if one does and still runs. */
  static holder(dir: string): number | undefined {
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, 'freshfacts.lock'), 'utf8'));
    } catch {
      return undefined;
    }
    return owner !== process.pid && isRunning(owner) ? owner : undefined;
  }

  /**
   * Tells other processes where the holder serves HTTP, so that the command line can
   * go through its admin API instead of the held folder. Removed with the lock.
   */
  announce(url: string): void {
    writeFileSync(serverFile(dirname(this.path)), JSON.stringify({ pid: process.pid, url }));
  }

  /** Where the holder of `dir` said it serves, if it did. */
  static server(dir: string): { pid: number; url: string } | undefined {
    try {
      const server = JSON.parse(readFileSync(serverFile(dir), 'utf8')) as {
        pid: unknown;
        url: unknown;
      };
      return typeof server.pid === 'number' && typeof server.url === 'string'
        ? { pid: server.pid, url: server.url }
        : undefined;
    } catch {
      return undefined;
    }
  }
}

/** How the refusal names the way through a running server (CLI commands that have one). */
export const ADMIN_WAY_OUT =
  ' Or, with FRESHFACTS_ADMIN_TOKEN set to its admin token, `ingest`, `keys`, `accounts`, ' +
  '`sources` and `facts` go through its admin API.';

function serverFile(dir: string): string {
  return join(dir, 'freshfacts.server');
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return pid === process.pid;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
