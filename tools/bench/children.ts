import { ChildProcess, spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

/** The bench's child processes: scripts that answer JSON, servers until ready, and their end. */

/** Runs `script SPEC.json` in a new Node process and parses what it prints. */
export async function jsonChild<T>(
  script: string,
  spec: unknown,
  env: NodeJS.ProcessEnv,
  args: string[] = [],
): Promise<T> {
  const specFile = writeSpec(dirname(script), 'spec', spec);
  try {
    const child = spawn(process.execPath, [script, specFile, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    if (code !== 0) throw new Error(`${script} failed (exit ${code})`);
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
  } finally {
    rmSync(specFile, { force: true });
  }
}

export function writeSpec(dir: string, name: string, spec: unknown): string {
  const path = join(dir, `.${name}-${process.pid}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(spec));
  return path;
}

export async function ready(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30 * 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode}`);
    const status = await fetch(url).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`${url} not ready after 30 minutes`);
}

export function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((done, fail) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', done);
    child.once('exit', (code) => fail(new Error(`peer exited with code ${code}`)));
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await closed;
  clearTimeout(timer);
}
