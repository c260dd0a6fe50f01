import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** A server under test, in its own process so the load generator does not share its event loop. */
export interface BenchProcess {
  url: string;
  child: ChildProcess;
  stop(): void;
}

/**
 * Forks one of ./servers/*.ts, or a server file by absolute path (TypeScript through tsx), and waits for the port it
 * reports. `stdout: 'pipe'` hands its standard output to the caller (V8's `--trace-gc-nvp` lines, for one).
 */
export function forkServer(name: string, env: Record<string, string> = {}, nodeFlags: string[] = [], stdout: 'inherit' | 'pipe' = 'inherit'): Promise<BenchProcess> {
  const child = fork(name.startsWith('/') ? name : fileURLToPath(new URL(`./servers/${name}.ts`, import.meta.url)), {
    execArgv: ['--import', 'tsx', '--expose-gc', ...nodeFlags],
    env: { ...process.env, ...env },
    stdio: ['ignore', stdout, 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
    child.once('message', (message) => {
      const { port } = message as { port: number };
      resolve({ url: `http://127.0.0.1:${port}`, child, stop: () => child.kill() });
    });
  });
}

/** Starts Portkey's open-source gateway from its npm package, as its README runs it. */
export async function startPortkey(port: number): Promise<BenchProcess> {
  const require = createRequire(import.meta.url);
  const entry = require.resolve('@portkey-ai/gateway/build/start-server.js');
  const child = spawn(process.execPath, [entry, `--port=${port}`, '--headless'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(url);
      return { url, child, stop: () => child.kill() };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  child.kill();
  throw new Error('Portkey gateway did not start');
}

/** Asks a forked server for its memory after a full garbage collection. */
export function memoryOf(server: BenchProcess): Promise<{ rss: number; heapUsed: number }> {
  return new Promise((resolve) => {
    server.child.once('message', (message) => resolve(message as { rss: number; heapUsed: number }));
    server.child.send('memory');
  });
}

/** Linux reports a process's times in clock ticks of 1/100 s. */
export const CLOCK_TICK_US = 10_000;

/**
 * The fields of `/proc/<pid>/stat` after the command name (utime is [11], stime [12], the exited children's
 * cutime/cstime [13]/[14]); of one thread's with `thread`; undefined once the process has exited.
 */
export function procStatFields(pid: number | string, thread?: number): string[] | undefined {
  try {
    const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * utime + stime of a process in µs, all its threads (the SQL worker included) or its main thread only: CPU per
 * request, which a loaded 2-core machine distorts far less than req/s.
 */
export function cpuMicros(pid: number, mainThread = false): number {
  const fields = procStatFields(pid, mainThread ? pid : undefined)!;
  return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_US;
}
