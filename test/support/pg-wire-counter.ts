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
  /** Session resets sent (`DISCARD ALL`, as a Query or a Parse). */
  resets: number;
  /** ReadyForQuery messages PostgreSQL sent: once it equals `syncs`, every unit of work sent was answered. */
  answers: number;
}

export class PgWireCounter {
  readonly counts: WireCounts = { syncs: 0, roundTrips: 0, parses: 0, resets: 0, answers: 0 };
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
    const frontend = new PgMessages(true, (type, body) => {
      if (type === 'Q' || type === 'S') this.counts.syncs++;
      if (type === 'P') this.counts.parses++;
      if (textOf(type, body) === 'DISCARD ALL') this.counts.resets++;
    });
    let started = false; // the ReadyForQuery that ends the connection's startup answers no Query or Sync
    const backend = new PgMessages(false, (type) => {
      if (type !== 'Z') return;
      if (started) this.counts.answers++;
      started = true;
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
      backend.push(chunk);
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

/**
 * Splits one direction's byte stream into messages: type byte + length. The frontend's stream opens with a
 * startup packet (length first, no type), which is skipped.
 */
class PgMessages {
  #awaitingStartup: boolean;
  #pending: Buffer = Buffer.alloc(0);

  constructor(
    opensWithStartup: boolean,
    private readonly onMessage: (type: string, body: Buffer) => void,
  ) {
    this.#awaitingStartup = opensWithStartup;
  }

  /** Past the startup packet (at once for a stream without one). */
  get started(): boolean {
    return !this.#awaitingStartup;
  }

  push(chunk: Buffer): void {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    for (;;) {
      const typed = !this.#awaitingStartup;
      if (this.#pending.length < (typed ? 5 : 4)) return;
      const length = typed ? this.#pending.readUInt32BE(1) + 1 : this.#pending.readUInt32BE(0);
      if (this.#pending.length < length) return;
      if (typed) this.onMessage(String.fromCharCode(this.#pending[0]!), this.#pending.subarray(5, length));
      else this.#awaitingStartup = false;
      this.#pending = this.#pending.subarray(length);
    }
  }
}

/** A Query's text, or a Parse's (after the statement's name): both are NUL-terminated; undefined for other messages. */
function textOf(type: string, body: Buffer): string | undefined {
  if (type === 'Q') return body.toString('utf8', 0, body.indexOf(0));
  if (type !== 'P') return undefined;
  const start = body.indexOf(0) + 1;
  return body.toString('utf8', start, body.indexOf(0, start));
}
