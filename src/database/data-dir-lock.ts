import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
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
              'that several processes can share.',
          );
        }
        unlinkSync(path);
      }
    }
    throw new DatabaseSetupError(`could not lock ${dir}`);
  }

  release(): void {
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone: nothing to release.
    }
  }
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
