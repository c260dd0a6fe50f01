import type { ServerResponse } from 'node:http';

/**
 * Writes server-sent events with backpressure. The first `send` commits the status and headers,
 * so an error before it can still answer a normal JSON error (contract §6.1 failure mode 1).
 * `send` (and `write`, `drained`) rejects once the client is gone (its response closed) or has read
 * nothing for `maxPausedMs` while a write waits: a relay then stops, instead of waiting on a client that
 * never reads or a `close` that already happened.
 *
 * @example
 * const sse = new SseWriter(res, { 'x-service-dropped-params': 'logit_bias' }, 30_000);
 * await sse.send({ id: 1 });           // data-only events (OpenAI family)
 * await sse.send({ type: 'ping' }, 'ping');  // named events (Anthropic family)
 * sse.end();
 */
export class SseWriter {
  /** The response headers until the first event sends them; dropped then, as nothing reads them after. */
  #headers: Record<string, string> | undefined;

  constructor(
    private readonly res: ServerResponse,
    headers: Record<string, string>,
    /** `relay.maxPausedStreamMs`. */
    private readonly maxPausedMs: number,
  ) {
    this.#headers = headers;
  }

  get started(): boolean {
    return this.#headers === undefined;
  }

  async send(data: unknown, event?: string): Promise<void> {
    if (!this.write(data, event)) await this.drained();
  }

  /**
   * Writes one event now; false when the client's buffer is full (wait for `drained()` before more).
   * Throws once the client is gone: writing to a closed response only returns false, and its `close`
   * will not come again.
   */
  write(data: unknown, event?: string): boolean {
    if (this.res.destroyed || this.res.writableEnded) throw clientGone();
    this.#start();
    const text = typeof data === 'string' ? data : JSON.stringify(data);
    const frame = (event ? `event: ${event}\n` : '') + `data: ${text}\n\n`;
    const written = this.res.write(frame);
    // A compression middleware in front (Express's compression()) holds what is written until it is flushed:
    // each event goes out now, as compression() documents for server-sent events.
    (this.res as ServerResponse & { flush?: () => void }).flush?.();
    return written;
  }

  /** Resolves when the client read what was buffered; rejects when it left or read nothing for `maxPausedMs`. */
  drained(): Promise<void> {
    return waitForDrain(this.res, this.maxPausedMs);
  }

  /** Normal end of stream. */
  end(): void {
    this.#start();
    this.res.end();
  }

  /**
   * Abnormal end (DESIGN "Streaming"): no terminal chunk, no invented error event; the socket is
   * destroyed so the client sees the stream break instead of a clean end.
   */
  abort(): void {
    this.res.destroy();
  }

  #start(): void {
    const headers = this.#headers;
    if (headers === undefined) return;
    this.#headers = undefined;
    this.res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    this.res.flushHeaders();
  }
}

/** Resolves when the client read what was buffered; rejects when it left or stayed paused too long. */
function waitForDrain(res: ServerResponse, maxPausedMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    if (res.destroyed) return reject(clientGone());
    const timer = setTimeout(() => finish(new Error(`The client read nothing for ${maxPausedMs} ms (relay.maxPausedStreamMs)`)), maxPausedMs);
    const drained = () => finish(undefined);
    const closed = () => finish(clientGone());
    res.on('drain', drained);
    res.on('close', closed);
    function finish(error: Error | undefined) {
      clearTimeout(timer);
      res.off('drain', drained);
      res.off('close', closed);
      if (error) reject(error);
      else resolve();
    }
  });
}

function clientGone(): Error {
  return new Error('The client closed the stream');
}
