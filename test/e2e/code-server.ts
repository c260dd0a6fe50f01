import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where test/e2e/setup-code-server.sh installs code-server (a real VS Code that runs offline). */
export const CODE_SERVER_VERSION = process.env.CODE_SERVER_VERSION ?? '4.100.3';
const host = process.env.TOLLGATE_VSCODE_HOST ?? join(homedir(), '.cache', 'tollgate-vscode-host', CODE_SERVER_VERSION);
const entry = join(host, 'node_modules', 'code-server', 'out', 'node', 'entry.js');

export interface RunningCodeServer {
  url: string;
  close(): Promise<void>;
}

export function codeServerInstalled(): boolean {
  return existsSync(join(host, '.installed')) && existsSync(entry);
}

/** `code-server --install-extension`: the same path a user takes with a downloaded .vsix. */
export function installExtension(vsix: string, dirs: { extensions: string; userData: string }): void {
  const result = spawnSync(process.execPath, [entry, '--extensions-dir', dirs.extensions, '--user-data-dir', dirs.userData, '--install-extension', vsix], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`installing ${vsix} failed:\n${result.stdout}\n${result.stderr}`);
}

/** Starts code-server on a free loopback port with the given user settings; resolves once it serves. */
export async function startCodeServer(dirs: { extensions: string; userData: string }, userSettings: Record<string, unknown>): Promise<RunningCodeServer> {
  mkdirSync(join(dirs.userData, 'User'), { recursive: true });
  writeFileSync(join(dirs.userData, 'User', 'settings.json'), JSON.stringify(userSettings, null, 2));
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [entry, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--extensions-dir', dirs.extensions, '--user-data-dir', dirs.userData],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, VSCODE_PROXY_URI: '' } },
  );
  const output: string[] = [];
  child.stdout!.on('data', (chunk) => output.push(String(chunk)));
  child.stderr!.on('data', (chunk) => output.push(String(chunk)));
  const url = `http://127.0.0.1:${port}`;
  await waitUntilServing(url, child, output);
  return {
    url,
    close: () => stop(child),
  };
}

async function waitUntilServing(url: string, child: ChildProcess, output: string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`code-server exited (${child.exitCode}):\n${output.join('')}`);
    const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`code-server did not start within 60 s:\n${output.join('')}`);
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
