/**
 * Everything the process writes to stdout from now on (the service's JSON log lines),
 * still passed through, so a test can assert what was logged and at which level.
 */
export function captureStdout(): string[] {
  const logged: string[] = [];
  const write = process.stdout.write.bind(process.stdout) as (
    c: unknown,
    ...r: unknown[]
  ) => boolean;
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown, ...rest: unknown[]) => {
    logged.push(String(chunk));
    return write(chunk, ...rest);
  });
  return logged;
}
