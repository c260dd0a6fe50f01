import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The built CLI, as users run it (`npm test` builds first; after changing the source, run
 * `npx tsc -b packages/middleware` before a focused run). Built, a child starts in about half the time
 * it takes through tsx, which matters for tests that start several.
 */
const CLI = fileURLToPath(new URL('../../packages/middleware/dist/cli.js', import.meta.url));
const RUN_BUILT = [CLI];

/** A `tollgate serve` child process. */
export interface ServingCli {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** SIGTERM (graceful) or SIGKILL; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `tollgate serve … --port 0` from source in `cwd`; resolves once it has printed its address (and, on the embedded default, its key lines). */
export function serveCli(cwd: string, ...args: string[]): Promise<ServingCli> {
  const child = spawn(process.execPath, [...RUN_BUILT, 'serve', '--port', '0', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const stop = (signal: NodeJS.Signals = 'SIGTERM') => {
    const exited = exitOf(child);
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', () => {
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url && (args.includes('--config') || output.includes('curl'))) resolve({ child, url, output: () => output, stop });
    });
    child.once('exit', (code) => reject(Object.assign(new Error(`serve exited with ${code}: ${output}`), { code, output })));
  });
}

/** `tollgate admin …` from source in `cwd`; resolves with its exit code and everything it printed. */
export function adminCli(cwd: string, ...args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [...RUN_BUILT, 'admin', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  return exitOf(child).then((code) => ({ code, output }));
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
}
