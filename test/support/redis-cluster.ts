import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A real three-node Redis Cluster on 127.0.0.1 (no replicas): three `redis-server --cluster-enabled yes`
 * on free ports, joined with `redis-cli --cluster create`, ready once every node reports cluster_state:ok.
 */
export class RedisCluster {
  readonly #dir = mkdtempSync(join(tmpdir(), 'tollgate-redis-cluster-'));
  readonly #processes: ChildProcess[] = [];

  private constructor(readonly ports: number[]) {}

  /** The seed nodes, as `store.cluster` takes them. */
  get urls(): string[] {
    return this.ports.map((port) => `redis://127.0.0.1:${port}`);
  }

  static async start(): Promise<RedisCluster> {
    const ports: number[] = [];
    while (ports.length < 3) {
      const port = await freePort();
      // The cluster bus listens on port + 10000, which must be free too.
      if (port <= 55_535 && !ports.includes(port)) ports.push(port);
    }
    const cluster = new RedisCluster(ports);
    try {
      await Promise.all(ports.map((port) => cluster.#startNode(port)));
      await run('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes']);
      for (const port of ports) await waitForClusterOk(port);
    } catch (error) {
      await cluster.close();
      throw error;
    }
    return cluster;
  }

  async #startNode(port: number): Promise<void> {
    const dir = join(this.#dir, String(port));
    const child = spawn('sh', ['-c', `mkdir -p ${dir} && exec redis-server --port ${port} --bind 127.0.0.1 --dir ${dir} --cluster-enabled yes --cluster-config-file ${join(dir, 'nodes.conf')} --save '' --appendonly no`], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.#processes.push(child);
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`redis-server on ${port} exited with ${code}`)));
      child.stdout!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('Ready to accept connections')) resolve();
      });
    });
  }

  async close(): Promise<void> {
    await Promise.all(
      this.#processes.map((child) => {
        if (child.exitCode !== null || child.signalCode !== null) return undefined;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        return exited;
      }),
    );
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

async function waitForClusterOk(port: number): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const { stdout } = await run('redis-cli', ['-p', String(port), 'cluster', 'info']);
    if (stdout.includes('cluster_state:ok')) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the cluster node on ${port} never reported cluster_state:ok`);
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
