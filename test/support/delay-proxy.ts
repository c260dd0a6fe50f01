import { connect, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy in front of Redis whose replies can be delayed (a slow Redis, a congested network). */
export class DelayProxy {
  delayMs = 0;
  readonly #sockets = new Set<Socket>();
  /** Replies held: cleared at close, so a reply held "forever" does not keep the process alive. */
  readonly #held = new Set<NodeJS.Timeout>();
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }
  static async start(targetPort: number): Promise<DelayProxy> {
    let proxy: DelayProxy;
    const server = createServer((client) => {
      const upstream = connect(targetPort, '127.0.0.1');
      proxy.#sockets.add(client);
      proxy.#sockets.add(upstream);
      client.on('data', (chunk) => upstream.write(chunk));
      // Replies in order, each held delayMs.
      let chain = Promise.resolve();
      upstream.on('data', (chunk) => {
        const delay = proxy.delayMs;
        chain = chain.then(() => new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            proxy.#held.delete(timer);
            if (!client.destroyed) client.write(chunk);
            resolve();
          }, delay);
          proxy.#held.add(timer);
        }));
      });
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end).on('error', end);
      upstream.on('close', end).on('error', end);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new DelayProxy(server, (server.address() as { port: number }).port);
    return proxy;
  }
  async close(): Promise<void> {
    for (const timer of this.#held) clearTimeout(timer);
    for (const socket of this.#sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
