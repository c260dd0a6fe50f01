import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { posix } from 'node:path';
import initSqlJs, { type Database, type SqlJsStatic } from 'sql.js';
import type { PageOp } from './page-op.js';
import { sqlJsBuilds, type SqlJsBuild } from './sqljs-build-table.js';

/** The file-system syscalls sql.js imports, as Emscripten calls them (`seek`'s and `truncate`'s i64 as BigInt). */
interface Syscalls {
  openat(dirfd: number, pathPtr: number, flags: number, varargs: number): number;
  close(fd: number): number;
  seek(fd: number, offset: bigint, whence: number, newOffsetPtr: number): number;
  write(fd: number, iov: number, iovcnt: number, writtenPtr: number): number;
  truncate(fd: number, length: bigint): number;
}

/** The slice of the WebAssembly API used here (the project's TypeScript libs do not declare it). */
interface WasmMemory {
  buffer: ArrayBuffer;
}
interface WasmInstance {
  exports: Record<string, unknown>;
}
const WebAssemblyApi = (globalThis as unknown as { WebAssembly: { instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: WasmInstance }>; Memory: abstract new () => WasmMemory } }).WebAssembly;

/** What the capture knows of one open file descriptor. */
interface OpenFile {
  path: string;
  position: number;
  /** A database's own file (`/dbfile_<n>`), not a temp file or export's private copy. */
  watched: boolean;
}

/**
 * Every write SQLite makes to a database file inside sql.js, as `PageOp`s.
 *
 * sql.js passes its init config to Emscripten as `Module`, and Emscripten's documented `instantiateWasm`
 * hook receives the import object before the module is instantiated: wrapping the five syscalls SQLite's
 * unix VFS writes through (openat, close, fd_seek, fd_write, ftruncate) shows each write as (file, offset,
 * bytes) without touching sql.js. Which import is which is pinned per build (`sqljs-build-table.ts`); an
 * unknown build is refused, and `page-capture-self-test.ts` proves the capture rebuilds a file before the
 * worker relies on it.
 *
 * @example
 * const { SQL, capture } = await initCapturingSqlJs(wasmBytes);
 * const db = new SQL.Database(); db.exec('CREATE TABLE t(x)');
 * capture.take(db); // [{ offset: 0, data: <4096 bytes> }, …]
 */
export class PageCapture {
  readonly #files = new Map<number, OpenFile>();
  readonly #pending = new Map<string, PageOp[]>();
  #memory: WasmMemory | undefined;
  #siblingWrites = false;

  /** The writes and truncations made to `db`'s file since the last take, in order; forgets those of other files. */
  take(db: Database): PageOp[] {
    const path = `/${(db as unknown as { filename: string }).filename}`;
    const ops = this.#pending.get(path) ?? [];
    this.#pending.clear();
    return ops;
  }

  /**
   * Whether SQLite wrote a database's sibling file (`-wal`, `-journal`) since the last call: a request changed
   * the journal mode, and a WAL's commits would bypass the captured file. The worker then restores its mode,
   * which checkpoints the WAL into the database file, through the capture.
   */
  takeSiblingWrites(): boolean {
    const seen = this.#siblingWrites;
    this.#siblingWrites = false;
    return seen;
  }

  /** Replaces the five syscalls of `env` with recording wrappers around them. */
  install(env: Record<string, unknown>, names: SqlJsBuild['imports']): void {
    for (const [role, name] of Object.entries(names)) {
      if (typeof env[name] !== 'function') throw new Error(`sql.js import "${name}" (${role}) is missing: the wasm and its JavaScript glue are not the pinned build`);
    }
    const original = Object.fromEntries(Object.entries(names).map(([role, name]) => [role, env[name]])) as unknown as Syscalls;
    const wrappers: Syscalls = {
      openat: (dirfd, pathPtr, flags, varargs) => {
        const fd = original.openat(dirfd, pathPtr, flags, varargs);
        if (fd >= 0) {
          // SQLite passes full paths and the cwd is '/'; normalised so the watch test sees one spelling.
          const path = posix.normalize(posix.join('/', this.#cString(pathPtr)));
          this.#files.set(fd, { path, position: 0, watched: /^\/dbfile_\d+$/.test(path) });
        }
        return fd;
      },
      close: (fd) => {
        this.#files.delete(fd);
        return original.close(fd);
      },
      seek: (fd, offset, whence, newOffsetPtr) => {
        const rc = original.seek(fd, offset, whence, newOffsetPtr);
        const file = this.#files.get(fd);
        if (rc === 0 && file) file.position = Number(new DataView(this.#memory!.buffer).getBigInt64(newOffsetPtr, true));
        return rc;
      },
      write: (fd, iov, iovcnt, writtenPtr) => {
        const rc = original.write(fd, iov, iovcnt, writtenPtr);
        const file = this.#files.get(fd);
        if (rc !== 0 || !file) return rc;
        const view = new DataView(this.#memory!.buffer);
        const written = view.getUint32(writtenPtr, true);
        if (file.watched && written > 0) this.#record(file.path, { offset: file.position, data: this.#gather(view, iov, iovcnt, written) });
        else if (file.path.startsWith('/dbfile_')) this.#siblingWrites = true;
        file.position += written;
        return rc;
      },
      truncate: (fd, length) => {
        const rc = original.truncate(fd, length);
        const file = this.#files.get(fd);
        if (rc === 0 && file?.watched) this.#record(file.path, { truncate: Number(length) });
        return rc;
      },
    };
    for (const [role, name] of Object.entries(names)) env[name] = wrappers[role as keyof Syscalls];
  }

  attach(memory: WasmMemory): void {
    this.#memory = memory;
  }

  /** The wasm heap's size now: it only grows (WebAssembly memory never shrinks). */
  get heapBytes(): number {
    return this.#memory?.buffer.byteLength ?? 0;
  }

  /** Copies an iovec's bytes into a buffer of their own (transferable to the main thread without a copy). */
  #gather(view: DataView, iov: number, iovcnt: number, written: number): Uint8Array {
    const heap = new Uint8Array(this.#memory!.buffer);
    const data = new Uint8Array(written);
    let at = 0;
    for (let i = 0; i < iovcnt && at < written; i++) {
      const pointer = view.getUint32(iov + 8 * i, true);
      const length = Math.min(view.getUint32(iov + 8 * i + 4, true), written - at);
      data.set(heap.subarray(pointer, pointer + length), at);
      at += length;
    }
    return data;
  }

  #record(path: string, op: PageOp): void {
    const list = this.#pending.get(path);
    if (list) list.push(op);
    else this.#pending.set(path, [op]);
  }

  #cString(pointer: number): string {
    const heap = new Uint8Array(this.#memory!.buffer);
    const end = heap.indexOf(0, pointer);
    return Buffer.from(heap.subarray(pointer, end)).toString('utf8');
  }
}

/**
 * Starts sql.js with the page capture installed. Refuses a build that is not in the table: its minified
 * import names could mean other syscalls, and a capture that misses a write would lose data silently.
 */
export async function initCapturingSqlJs(wasm: Uint8Array): Promise<{ SQL: SqlJsStatic; capture: PageCapture }> {
  const build = pinnedBuild(wasm);
  const capture = new PageCapture();
  let installed = false;
  const SQL = await initSqlJs({
    instantiateWasm(imports: Record<string, Record<string, unknown>>, receive: (instance: WasmInstance) => void) {
      const [namespace] = Object.keys(imports);
      capture.install(imports[namespace!]!, build.imports);
      installed = true;
      void WebAssemblyApi.instantiate(wasm, imports).then(({ instance }) => {
        capture.attach(Object.values(instance.exports).find((value): value is WasmMemory => value instanceof WebAssemblyApi.Memory)!);
        receive(instance);
      });
      return {};
    },
  } as Parameters<typeof initSqlJs>[0]);
  // sql.js keeps its first module per thread: one started earlier without the hook would capture nothing.
  if (!installed) throw new Error('sql.js was already started in this thread without the page capture; the SQL worker must start it first');
  return { SQL, capture };
}

/** The table row of this wasm; its glue is checked too where it is a file (a bundling host inlines it). */
export function pinnedBuild(wasm: Uint8Array): SqlJsBuild {
  const wasmSha256 = sha256(wasm);
  const build = sqlJsBuilds[wasmSha256];
  if (!build) {
    throw new Error(`sql.js build with sql-wasm.wasm SHA-256 ${wasmSha256} is not in sqljs-build-table.ts; its syscall imports are unknown, so its writes cannot be captured. Run \`npm run derive-sqljs-build-table\` and add the row it prints`);
  }
  const glue = installedGlue();
  if (glue && sha256(glue) !== build.glueSha256) {
    throw new Error(`sql.js's sql-wasm.js (SHA-256 ${sha256(glue)}) is not the glue of the pinned build ${build.sqlJs} (${build.glueSha256}); reinstall sql.js or derive the table again`);
  }
  return build;
}

function installedGlue(): Buffer | undefined {
  try {
    return readFileSync(createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.js'));
  } catch {
    return undefined;
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
