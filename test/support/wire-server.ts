import { createServer, Server, Socket } from 'node:net';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import { SESSION_SETTINGS } from '../../src/database/data-source';

/** A PGlite database in `dir` configured as a real server would be, to serve over the wire. */
export async function serverDatabase(dir: string): Promise<PGlite> {
  const db = await PGlite.create(join(dir, 'server'), { extensions: { vector } });
  // A real server gets these from postgresql.conf or ALTER DATABASE; the wire
  // server shares one session, so they are set on it once.
  for (const [name, value] of Object.entries(SESSION_SETTINGS)) {
    await db.query(`SELECT set_config($1, $2, false)`, [name, value]);
  }
  return db;
}

/**
 * PGlite behind the PostgreSQL wire protocol for several clients at once, as a
 * stand-in for a PostgreSQL server shared by replicas. PGlite has one session, so
 * clients take turns: a client holds it for a whole exchange (an extended-protocol
 * batch up to its Sync, or a simple query) and, inside a transaction, until the
 * transaction ends. (pglite-socket 0.0.22 interleaves single messages of different
 * clients, which breaks their unnamed statements.)
 */
export async function startSharedWireServer(
  db: PGlite,
  port = 0,
): Promise<{ port: number; stop(): Promise<void> }> {
  const turn = new Turn();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serve(db, turn, socket);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const SSL_REQUEST = 80877103;
// Messages after which the client waits for an answer: Sync, simple Query, a
// password during authentication, Flush.
const BOUNDARIES = new Set(['S', 'Q', 'p', 'H']);

function serve(db: PGlite, turn: Turn, socket: Socket): void {
  const me = {};
  let buffer = Buffer.alloc(0);
  let started = false;
  let batch: Buffer[] = [];
  let chain = Promise.resolve();

  const run = (messages: Buffer[]) =>
    (chain = chain.then(async () => {
      await turn.take(me);
      let idle = false;
      try {
        const replies: Uint8Array[] = [];
        for (const part of readSized(messages)) replies.push(await db.execProtocolRaw(part));
        const reply = Buffer.concat(replies);
        idle = readyAndIdle(reply);
        if (!socket.destroyed && reply.length) socket.write(reply);
      } finally {
        // Inside a transaction (or mid-exchange) the session stays this client's.
        if (idle) turn.give(me);
      }
    }));

  socket.on('data', (data: Buffer) => {
    buffer = Buffer.concat([buffer, data]);
    for (;;) {
      if (!started) {
        if (buffer.length < 8) return;
        const length = buffer.readInt32BE(0);
        if (buffer.length < length) return;
        const message = buffer.subarray(0, length);
        buffer = buffer.subarray(length);
        if (message.readInt32BE(4) === SSL_REQUEST) {
          socket.write('N');
          continue;
        }
        started = true;
        void run([message]);
        continue;
      }
      if (buffer.length < 5) return;
      const length = 1 + buffer.readInt32BE(1);
      if (buffer.length < length) return;
      const type = String.fromCharCode(buffer[0]);
      const message = buffer.subarray(0, length);
      buffer = buffer.subarray(length);
      if (type === 'X') {
        socket.end();
        return;
      }
      batch.push(message);
      if (BOUNDARIES.has(type)) {
        void run(batch);
        batch = [];
      }
    }
  });
  socket.on('error', () => socket.destroy());
  socket.on('close', () => {
    void chain.then(async () => {
      // A client that leaves inside a transaction must not leave it to the next one.
      if (turn.holder === me) {
        await db.exec('ROLLBACK');
        turn.give(me);
      }
    });
  });
}

/**
 * An exchange cut into the parts PGlite reads whole: PGlite 0.3.16 loses the rest of
 * a request after a message that ends on a multiple of 8 KiB (its read buffer), so a
 * part ends there. PGlite carries an exchange on from one call to the next.
 */
function readSized(messages: Buffer[]): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let part: Buffer[] = [];
  let length = 0;
  for (const message of messages) {
    part.push(message);
    length += message.length;
    if (length % 8192 === 0) {
      parts.push(Buffer.concat(part));
      [part, length] = [[], 0];
    }
  }
  if (part.length) parts.push(Buffer.concat(part));
  return parts;
}

/**
 * Whether a reply ends the exchange with the session idle: its last message is
 * ReadyForQuery ('Z', length 5) with status 'I' (not 'T' in a transaction, nor 'E'
 * in a failed one). PGlite's own isInTransaction() does not see raw protocol traffic.
 */
function readyAndIdle(reply: Uint8Array): boolean {
  const at = reply.length - 6;
  return at >= 0 && reply[at] === 0x5a && reply[reply.length - 1] === 0x49;
}

/** Whose turn it is at the one PGlite session. */
class Turn {
  holder?: object;
  private waiting: { who: object; go: () => void }[] = [];

  take(who: object): Promise<void> {
    if (!this.holder || this.holder === who) {
      this.holder = who;
      return Promise.resolve();
    }
    return new Promise((go) => this.waiting.push({ who, go }));
  }

  give(who: object): void {
    if (this.holder !== who) return;
    const next = this.waiting.shift();
    this.holder = next?.who;
    next?.go();
  }
}
