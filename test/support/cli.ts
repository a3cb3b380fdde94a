import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

// The command-line tool as a user runs it (built into dist/ by the test script).
const BIN = join(__dirname, '..', '..', 'bin', 'freshfacts');

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

/** Starts `bin/freshfacts ARGS` with `env` added to this process's environment. */
export function run(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; done: Promise<Finished> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env, NODE_OPTIONS: '' },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (err += chunk));
  const done = new Promise<Finished>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, out, err })),
  );
  return { child, done };
}

/** `bin/freshfacts serve` on a free loopback port, once it is listening. */
export async function serve(
  env: Record<string, string>,
): Promise<{ port: number; log: () => string; stop: () => Promise<Finished> }> {
  const server = run(['serve', '--host', '127.0.0.1'], { PORT: '0', ...env });
  let log = '';
  const port = await new Promise<number>((resolve, reject) => {
    server.child.stdout!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
      if (m) resolve(Number(m[1]));
    });
    server.child.on('close', () => reject(new Error(`serve exited: ${log}`)));
  });
  return {
    port,
    log: () => log,
    stop: () => {
      server.child.kill('SIGTERM');
      return server.done;
    },
  };
}
