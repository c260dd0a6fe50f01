import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One scripted answer: a status with headers and body, a stream of raw SSE text, a dropped connection, or an
 * answer that never ends (`flood`: `head`, then `chunk` again and again, as fast as the client reads, until it
 * hangs up).
 */
export type Scripted =
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | { sse: string[]; contentType?: string; breakAfter?: boolean }
  | { destroy: true }
  | { flood: string; head?: string; status?: number; contentType?: string };

/** A server that answers requests from a script, in order, and records what it received. */
export class ScriptedServer {
  readonly requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  readonly script: Scripted[] = [];
  /** Bytes each `flood` answer wrote before its client hung up, in the order they ended. */
  readonly flooded: number[] = [];
  #server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.#server = createServer((req, res) => void this.#answer(req, res));
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  respond(...answers: Scripted[]): this {
    this.script.push(...answers);
    return this;
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise((resolve) => this.#server?.close(resolve));
  }

  async #answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += chunk;
    this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    const next = this.script.shift() ?? { status: 500, body: { detail: 'script exhausted' } };
    if ('destroy' in next) return void req.socket.destroy();
    if ('flood' in next) return this.#flood(res, next);
    if ('sse' in next) {
      res.writeHead(200, { 'content-type': next.contentType ?? 'text/event-stream' });
      for (const frame of next.sse) res.write(frame);
      if (next.breakAfter) setTimeout(() => res.socket?.destroy(), 20);
      else res.end();
      return;
    }
    const text = typeof next.body === 'string' ? next.body : JSON.stringify(next.body ?? {});
    res.writeHead(next.status, { 'content-type': typeof next.body === 'string' ? 'text/html' : 'application/json', ...next.headers });
    res.end(text);
  }

  /** Writes until the client hangs up, respecting backpressure so the server's own memory stays flat. */
  #flood(res: ServerResponse, answer: Extract<Scripted, { flood: string }>): void {
    res.writeHead(answer.status ?? 200, { 'content-type': answer.contentType ?? 'application/json' });
    const chunk = Buffer.from(answer.flood);
    let written = 0;
    if (answer.head !== undefined) {
      res.write(answer.head);
      written += Buffer.byteLength(answer.head);
    }
    const write = () => {
      let more = true;
      while (more && !res.destroyed) {
        more = res.write(chunk);
        written += chunk.length;
      }
    };
    res.on('drain', write);
    res.on('close', () => this.flooded.push(written));
    write();
  }
}
