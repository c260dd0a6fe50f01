import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { ensurePrivateDir, writePrivateFileSync } from '../files/index.js';
import { ServiceError } from '../errors/index.js';
import type { AdminOperations } from '../policy/policy-types.js';
import { ADMIN_OPERATIONS, isAdminOperation, type StoreHolder } from './store-holder.js';

/** Who holds a memory store's file: a serving process, or a `tollgate admin` command for the moment of one operation. */
export type StoreRole = 'server' | 'admin';

/** How long a starting process waits for a `tollgate admin` command to let go of the store. */
const ADMIN_HOLD_WAIT_MS = 30_000;
const PING_TIMEOUT_MS = 1_000;
const MAX_ADMIN_BODY_BYTES = 64 * 1024;

/** A memory store's file is held by a running server: a second server would fork its state. */
export class StoreInUseError extends Error {
  override readonly name = 'StoreInUseError';
}

/**
 * The one process that owns a memory store's file (issue 15 item 10). It holds `<file>.lock` (0600):
 * `{pid, role, port, token, since}`, written with an exclusive create once its admin channel listens
 * on 127.0.0.1. The channel runs the store's admin operations for whoever can read the lock file (the
 * token is the proof), so `tollgate admin` forwards to a running server instead of editing a file that
 * server keeps in memory: a revocation reaches it before the command returns. A lock whose holder does
 * not answer (a process that died) is taken over.
 *
 * @example
 * const claim = await StoreOwner.claim('/srv/data/state.json', 'server');
 * if (claim.owner) claim.owner.serve(store);
 */
export class StoreOwner {
  #admin: AdminOperations | undefined;
  readonly #onExit = () => this.#unlinkIfOurs();

  private constructor(
    private readonly lockFile: string,
    private readonly server: Server,
    private readonly token: string,
  ) {
    process.once('exit', this.#onExit);
  }

  /**
   * Takes the store's lock, or finds the live process that holds it. A server finding another server
   * is refused (StoreInUseError); anyone finding an admin command waits for it (one operation is short).
   * An admin command finding a server gets it back, to forward its operation to.
   */
  static async claim(file: string, role: StoreRole): Promise<{ owner: StoreOwner; holder?: undefined } | { owner?: undefined; holder: StoreHolder }> {
    const lockFile = `${file}.lock`;
    ensurePrivateDir(dirname(file));
    const deadline = Date.now() + ADMIN_HOLD_WAIT_MS;
    for (;;) {
      const owner = await StoreOwner.#tryLock(lockFile, role);
      if (owner) return { owner };
      const holder = await liveHolder(lockFile);
      if (!holder) continue; // gone or dead: its lock was removed, try again
      if (holder.role === 'server' && role === 'admin') return { holder };
      if (holder.role === 'server') {
        throw new StoreInUseError(`The memory store ${file} is in use by process ${holder.pid} (a Tollgate server since ${holder.since}). Stop it first, or use \`tollgate admin\`, which forwards to it.`);
      }
      if (Date.now() > deadline) throw new StoreInUseError(`The memory store ${file} is held by \`tollgate admin\` (process ${holder.pid}) for more than ${ADMIN_HOLD_WAIT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  static async #tryLock(lockFile: string, role: StoreRole): Promise<StoreOwner | undefined> {
    const token = randomBytes(32).toString('hex');
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    // Never what keeps a process alive: a host that forgot gate.close() still exits, and the next start takes the lock over.
    server.unref();
    const { port } = server.address() as AddressInfo;
    const holder: StoreHolder = { pid: process.pid, role, port, token, since: new Date().toISOString() };
    try {
      writePrivateFileSync(lockFile, JSON.stringify(holder), 'wx');
    } catch (error) {
      server.close();
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
      throw error;
    }
    const owner = new StoreOwner(lockFile, server, token);
    server.on('request', (req, res) => void owner.#answer(req, res));
    return owner;
  }

  /** From now on the channel runs operations on this store (before, it answers that the store is starting). */
  serve(admin: AdminOperations): void {
    this.#admin = admin;
  }

  /** Stops the channel (operations in flight finish), runs `closeStore`, then gives the lock up. */
  async release(closeStore: () => Promise<void> = async () => undefined): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    await closed;
    try {
      await closeStore();
    } finally {
      this.#unlinkIfOurs();
      process.removeListener('exit', this.#onExit);
    }
  }

  #unlinkIfOurs(): void {
    try {
      if ((JSON.parse(readFileSync(this.lockFile, 'utf8')) as StoreHolder).token === this.token) unlinkSync(this.lockFile);
    } catch {
      // Already gone, or taken over: nothing of ours to remove.
    }
  }

  async #answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify(body));
    };
    if (!this.#authorised(req.headers.authorization)) return reply(401, { error: { kind: 'unauthorized', message: 'Wrong store token' } });
    if (req.method === 'GET' && req.url === '/ping') return reply(200, { pid: process.pid });
    if (req.method !== 'POST' || req.url !== '/admin') return reply(404, { error: { kind: 'invalid_request', message: 'Unknown route' } });
    try {
      const { op, args } = await readRequest(req);
      if (!this.#admin) throw new ServiceError('policy_unavailable', 'The store is still starting; retry');
      const result: unknown = await (this.#admin[op] as (...values: unknown[]) => Promise<unknown>).apply(this.#admin, args);
      reply(200, { result: result ?? null });
    } catch (error) {
      const failure = ServiceError.from(error);
      // Only the store's own user can read the token: the real message helps them, it leaks to no one.
      reply(failure.kind === 'internal' ? 500 : 400, { error: { kind: failure.kind, message: failure.kind === 'internal' ? String((error as Error)?.message ?? error) : failure.message } });
    }
  }

  #authorised(header: string | undefined): boolean {
    const presented = Buffer.from(/^Bearer (\S+)$/.exec(header ?? '')?.[1] ?? '');
    const expected = Buffer.from(this.token);
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  }
}

/** The lock's holder, if it answers its channel; a dead or unreadable holder's lock is removed. */
async function liveHolder(lockFile: string): Promise<StoreHolder | undefined> {
  let text: string;
  try {
    text = readFileSync(lockFile, 'utf8');
  } catch {
    return undefined;
  }
  let holder: StoreHolder | undefined;
  try {
    holder = JSON.parse(text) as StoreHolder;
  } catch {
    // Being written right now (the exclusive create and the write are two steps): look again shortly.
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (readFileSync(lockFile, 'utf8') !== text) return liveHolder(lockFile);
  }
  if (holder) {
    const answer = await answers(holder);
    // A holder whose process lives but is slow to answer (a stalled event loop, a paused process) still owns the store.
    if (answer === 'yes' || (answer === 'silent' && isAlive(holder.pid))) return holder;
  }
  removeIfUnchanged(lockFile, text);
  return undefined;
}

/** 'silent': the channel took the connection but did not answer in time; 'no': refused, or not that process. */
async function answers(holder: StoreHolder): Promise<'yes' | 'no' | 'silent'> {
  try {
    const response = await fetch(`http://127.0.0.1:${holder.port}/ping`, { headers: { authorization: `Bearer ${holder.token}` }, signal: AbortSignal.timeout(PING_TIMEOUT_MS) });
    return response.ok && ((await response.json()) as { pid?: unknown }).pid === holder.pid ? 'yes' : 'no';
  } catch (error) {
    return (error as Error)?.name === 'TimeoutError' ? 'silent' : 'no';
  }
}

function isAlive(pid: unknown): boolean {
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeIfUnchanged(lockFile: string, text: string): void {
  try {
    if (readFileSync(lockFile, 'utf8') === text) unlinkSync(lockFile);
  } catch {
    // Someone else removed it first.
  }
}

async function readRequest(req: IncomingMessage): Promise<{ op: keyof AdminOperations; args: unknown[] }> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ADMIN_BODY_BYTES) throw new ServiceError('request_too_large', 'Admin request too large');
    chunks.push(chunk);
  }
  let body: { op?: unknown; args?: unknown };
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
  } catch {
    throw new ServiceError('invalid_request', 'Admin request is not JSON');
  }
  if (!isAdminOperation(body?.op) || !Array.isArray(body.args) || body.args.length > 2) {
    throw new ServiceError('invalid_request', `Admin requests are {op: ${ADMIN_OPERATIONS.join(' | ')}, args: [...]}`);
  }
  return { op: body.op, args: body.args };
}
