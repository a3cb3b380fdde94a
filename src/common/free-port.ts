import { createServer } from 'node:net';

/**
 * A loopback port free at this moment, for a child server that takes its port as a
 * setting (PORT) rather than reporting one it chose itself.
 */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.on('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => done(port));
    });
  });
}
