import { ChildProcess, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/common/free-port';
import { postgresUser } from './pg-cluster';

/** Debian's pgbouncer package; a fresh machine has none. */
export const PGBOUNCER = '/usr/sbin/pgbouncer';
export const hasPgbouncer = () => existsSync(PGBOUNCER);

/**
 * PgBouncer in transaction mode on a free loopback port, in front of the PostgreSQL at
 * `host:port`, as the README configures it. As root it runs as `postgres` (it refuses
 * to run as root).
 */
export async function startPgbouncer(server: {
  host: string;
  port: number;
}): Promise<{ port: number; stop(): Promise<void> }> {
  const listenPort = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'freshfacts-pgbouncer-'));
  writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.host} port=${server.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${listenPort}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 4',
      'max_client_conn = 200',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
    ].join('\n') + '\n',
  );
  const root = userInfo().uid === 0;
  if (root) chownRecursive(dir);
  const child: ChildProcess = spawn(
    PGBOUNCER,
    [...(root ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  await listening(listenPort, child);
  return {
    port: listenPort,
    async stop() {
      child.kill('SIGINT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function chownRecursive(dir: string): void {
  const { uid, gid } = postgresUser();
  chownSync(dir, uid, gid);
  for (const file of ['users.txt', 'pgbouncer.ini']) chownSync(join(dir, file), uid, gid);
}

async function listening(port: number, child: ChildProcess): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), done(true)));
      socket.once('error', () => done(false));
    });
    if (open) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`pgbouncer not listening on ${port}`);
}
