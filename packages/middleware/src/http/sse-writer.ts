import type { ServerResponse } from 'node:http';

/**
 * Writes server-sent events with backpressure. The first `send` commits the status and headers,
 * so an error before it can still answer a normal JSON error (contract §6.1 failure mode 1).
 *
 * @example
 * const sse = new SseWriter(res, { 'x-service-dropped-params': 'logit_bias' });
 * await sse.send({ id: 1 });           // data-only events (OpenAI family)
 * await sse.send({ type: 'ping' }, 'ping');  // named events (Anthropic family)
 * sse.end();
 */
export class SseWriter {
  #started = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly headers: Record<string, string> = {},
  ) {}

  get started(): boolean {
    return this.#started;
  }

  async send(data: unknown, event?: string): Promise<void> {
    this.#start();
    const text = typeof data === 'string' ? data : JSON.stringify(data);
    const frame = (event ? `event: ${event}\n` : '') + `data: ${text}\n\n`;
    if (!this.res.write(frame)) await waitForDrain(this.res);
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
    if (this.#started) return;
    this.#started = true;
    this.res.writeHead(200, {
      ...this.headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    this.res.flushHeaders();
  }
}

function waitForDrain(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
