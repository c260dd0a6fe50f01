import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real redis-server on 127.0.0.1 and a free port, that a test can kill and start again. */
export class RedisServer {
  #process: ChildProcess | undefined;
  readonly #dir = mkdtempSync(join(tmpdir(), 'tollgate-redis-'));

  private constructor(
    readonly port: number,
    /** false: no AOF, no RDB — a restart loses everything, as a Redis run without persistence. */
    private readonly persistent: boolean,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(options: { persistent?: boolean } = {}): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), options.persistent ?? true);
    await server.restart();
    return server;
  }

  /** Starts the server (again, once stopped). */
  async restart(): Promise<void> {
    const persistence = this.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.#dir, '--save', '', ...persistence], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.#process = child;
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.stdout!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('Ready to accept connections')) resolve();
      });
    });
  }

  /** Freezes the server (SIGSTOP): connections stay open and nothing answers, as with a hung Redis. */
  pause(): void {
    this.#process?.kill('SIGSTOP');
  }

  resume(): void {
    this.#process?.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    const child = this.#process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
