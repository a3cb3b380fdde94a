import { spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/common/free-port';

/** The machine's PostgreSQL 15 programs (Debian's layout). */
export const PG_BIN = '/usr/lib/postgresql/15/bin';
export const hasPgPrograms = () => existsSync(join(PG_BIN, 'pg_basebackup'));

export interface StreamingPair {
  primaryUrl: (db: string) => string;
  replicaUrl: (db: string) => string;
  /** `pg_ctl stop -m fast` of the replica: its sessions are ended at once. */
  stopReplica(): void;
  /** SQL on the replica as the admin (pausing and resuming replay). */
  onReplica(sql: string): string;
  stop(): void;
}

/**
 * A PostgreSQL 15 cluster of its own (initdb) and a streaming replica made from it with
 * `pg_basebackup -R`, each on a free loopback port, in a temporary folder. Its own
 * primary, not the machine's: a base backup copies the whole cluster, and the machine's
 * admits no replication connections. As root, the programs run as `postgres`.
 */
export async function startStreamingPair(): Promise<StreamingPair> {
  const dir = mkdtempSync(join(tmpdir(), 'freshfacts-cluster-'));
  const [primary, replica] = [join(dir, 'primary'), join(dir, 'replica')];
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const asPostgres = userInfo().uid === 0 ? postgresUser() : undefined;
  if (asPostgres) chownSync(dir, asPostgres.uid, asPostgres.gid);
  const run = (program: string, args: string[]) => {
    const command = asPostgres ? ['runuser', '-u', 'postgres', '--'] : [];
    const all = [...command, join(PG_BIN, program), ...args];
    const done = spawnSync(all[0], all.slice(1), { encoding: 'utf8', cwd: dir });
    if (done.status !== 0) {
      throw new Error(`${program} failed (${done.status}): ${done.stderr}${done.stdout}`);
    }
    return done.stdout;
  };
  const settings = (folder: string, port: number) =>
    appendFileSync(
      join(folder, 'postgresql.conf'),
      `\nport = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\n` +
        `fsync = off\nmax_wal_senders = 4\n`,
    );
  run('initdb', ['-D', primary, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  settings(primary, primaryPort);
  run('pg_ctl', ['-D', primary, '-l', join(dir, 'primary.log'), '-w', 'start']);
  const stopAll: string[] = [primary];
  try {
    run('pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres'],
      ...['-D', replica, '-R', '-X', 'stream', '--checkpoint=fast'],
    ]);
    settings(replica, replicaPort);
    run('pg_ctl', ['-D', replica, '-l', join(dir, 'replica.log'), '-w', 'start']);
    stopAll.push(replica);
  } catch (err) {
    run('pg_ctl', ['-D', primary, '-m', 'immediate', 'stop']);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const url = (port: number) => (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;
  const stopped = new Set<string>();
  const stop = (folder: string) => {
    if (stopped.has(folder)) return;
    stopped.add(folder);
    run('pg_ctl', ['-D', folder, '-m', 'fast', '-w', 'stop']);
  };
  return {
    primaryUrl: url(primaryPort),
    replicaUrl: url(replicaPort),
    stopReplica: () => stop(replica),
    onReplica: (sql) =>
      run('psql', ['-h', '127.0.0.1', '-p', String(replicaPort), '-U', 'postgres', '-Atc', sql]),
    stop() {
      for (const folder of stopAll.reverse()) stop(folder);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The `postgres` system user, whom PostgreSQL's programs run as when the tests run as root. */
export function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('no postgres user to run PostgreSQL as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}
