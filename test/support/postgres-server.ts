import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's postgresql package puts its server binaries in a versioned directory, not on PATH. */
function serverBin(name: string): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  return join('/usr/lib/postgresql', versions[0]!, 'bin', name);
}

/**
 * PostgreSQL refuses to run as root: as root the cluster belongs to `nobody` and every server command runs
 * through `setpriv` as that user; as anyone else it runs as that user.
 */
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
function asServerUser(command: string, args: string[]): [string, string[]] {
  return asRoot ? ['setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', command, ...args]] : [command, args];
}

/**
 * A real PostgreSQL on 127.0.0.1 and a free port, in a throwaway cluster (initdb into a temporary directory,
 * trust authentication, fsync off: the tests check Tollgate, not the disk), that a test can stop and start.
 */
export class PostgresServer {
  #process: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
    /** Benchmarks of durable writes want PostgreSQL's real fsync; tests do not. */
    readonly fsync: boolean,
    /** Enough for every pool a run opens at once (a benchmark with four servers of 16 wants more than 60). */
    readonly maxConnections: number,
  ) {}

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** The same server through its Unix-domain socket (`unix_socket_directories` is the cluster's directory). */
  get socketUrl(): string {
    return `postgres://postgres@/postgres?host=${encodeURIComponent(this.dir)}&port=${this.port}`;
  }

  static async start(options: { fsync?: boolean; maxConnections?: number } = {}): Promise<PostgresServer> {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-pg-'));
    if (asRoot) chownSync(dir, NOBODY, NOBODY);
    const data = join(dir, 'data');
    const [command, args] = asServerUser(serverBin('initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    execFileSync(command, args, { stdio: 'ignore' });
    const server = new PostgresServer(await freePort(), dir, options.fsync ?? false, options.maxConnections ?? 60);
    await server.restart();
    return server;
  }

  async restart(): Promise<void> {
    const settings = ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${this.dir}`, '-c', `fsync=${this.fsync ? 'on' : 'off'}`, '-c', `max_connections=${this.maxConnections}`, '-c', 'shared_buffers=16MB'];
    const [command, args] = asServerUser(serverBin('postgres'), ['-D', join(this.dir, 'data'), '-p', String(this.port), ...settings]);
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.#process = child;
    await new Promise<void>((resolve, reject) => {
      let log = '';
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`postgres exited with code ${code}: ${log}`)));
      child.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('ready to accept connections')) resolve();
      });
    });
    child.removeAllListeners('exit');
  }

  /** Fast shutdown (SIGINT): open connections are closed, as when an operator stops the server. */
  async stop(): Promise<void> {
    const child = this.#process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  }

  /**
   * SIGSTOP to the postmaster, then to each of its children (every backend calls setsid(), so there is no one
   * process group to signal): a server that hangs without closing anything.
   */
  freeze(): void {
    this.#signalAll('SIGSTOP');
  }

  thaw(): void {
    this.#signalAll('SIGCONT');
  }

  #signalAll(signal: NodeJS.Signals): void {
    const postmaster = this.#process!.pid!;
    process.kill(postmaster, signal);
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue; // exited meanwhile
      }
      // Fields after the command name (which may hold spaces) in parentheses: state, then the parent pid.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === postmaster) process.kill(Number(pid), signal);
    }
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
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
