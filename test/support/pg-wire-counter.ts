// A TCP relay between Tollgate (or a benchmark server) and PostgreSQL that counts what crosses the wire: the frontend's
// Query and Sync messages (each one is answered by its own ReadyForQuery) and the round trips, i.e. the times a
// client writes again after PostgreSQL answered — writes sent back to back without waiting count once.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface WireCounts {
  /** Query ('Q') and Sync ('S') messages: each ends a unit of work PostgreSQL answers with ReadyForQuery. */
  syncs: number;
  /** Times a client sent after the server answered it: the waits a request's queries cost. */
  roundTrips: number;
  /** Parse ('P') messages: statements sent through the extended protocol. */
  parses: number;
}

export class PgWireCounter {
  readonly counts: WireCounts = { syncs: 0, roundTrips: 0, parses: 0 };
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();

  private constructor(readonly port: number) {}

  /** Listens on a free port and relays every connection to PostgreSQL at `target` (host 127.0.0.1). */
  static async start(targetPort: number): Promise<PgWireCounter> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const counter = new PgWireCounter((server.address() as { port: number }).port);
    counter.#server = server;
    server.on('connection', (client) => counter.#relay(client, targetPort));
    return counter;
  }

  #relay(client: Socket, targetPort: number): void {
    const upstream = connect(targetPort, '127.0.0.1');
    this.#sockets.add(client).add(upstream);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const frontend = new FrontendMessages((type) => {
      if (type === 'Q' || type === 'S') this.counts.syncs++;
      else if (type === 'P') this.counts.parses++;
    });
    let answered = true; // the startup packet counts as the connection's first turn, not a request's
    client.on('data', (chunk: Buffer) => {
      if (answered && frontend.started) this.counts.roundTrips++;
      answered = false;
      frontend.push(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      answered = true;
      client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise((resolve) => this.#server?.close(resolve));
  }
}

/** Splits the frontend's byte stream into messages: a startup packet (length first), then type byte + length. */
class FrontendMessages {
  started = false;
  #pending: Buffer = Buffer.alloc(0);

  constructor(private readonly onMessage: (type: string) => void) {}

  push(chunk: Buffer): void {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    for (;;) {
      const header = this.started ? 5 : 4;
      if (this.#pending.length < header) return;
      const length = this.#pending.readUInt32BE(this.started ? 1 : 0) + (this.started ? 1 : 0);
      if (this.#pending.length < length) return;
      if (this.started) this.onMessage(String.fromCharCode(this.#pending[0]!));
      else this.started = true;
      this.#pending = this.#pending.subarray(length);
    }
  }
}
