import { connect } from 'node:net';

/** What a raw socket got back for `bytes`, read until the server closes or `waitMs` passes. */
export function exchange(
  url: string,
  bytes: string,
  waitMs = 2000,
): Promise<{ text: string; ms: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let text = '';
    const done = () => {
      socket.destroy();
      resolve({ text, ms: Date.now() - started });
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('close', () => {
      clearTimeout(timer);
      done();
    });
    socket.on('error', reject);
  });
}

/** The status, content type and problem body of a raw HTTP answer. */
export function problemOf(raw: string): { status: number; type: string; contentType: string } {
  const [head, body] = raw.split('\r\n\r\n');
  const contentType = /^content-type: (.*)$/im.exec(head)?.[1] ?? '';
  return { status: Number(head.split(' ')[1]), contentType, ...JSON.parse(body) };
}
