/**
 * Which of sql.js's WebAssembly imports is which file-system syscall, per build. The import names are
 * minified by Emscripten and belong to one build, so each row is keyed by the SHA-256 of that build's
 * `sql-wasm.wasm` (its import section fixes the names) and records the SHA-256 of its `sql-wasm.js` glue,
 * checked too wherever the glue is a file (not when a host bundles it).
 *
 * A new sql.js build: run `npm run derive-sqljs-build-table` and add the row it prints.
 *
 * @example
 * const build = sqlJsBuilds[wasmSha256]; // { sqlJs: '1.16.0', glueSha256, imports: { openat: 'x', … } }
 */
export const sqlJsBuilds: Readonly<Record<string, SqlJsBuild>> = {
  '43bbcdd44287e5a2db3b6b5af34b1a3485a7a441285d247976c1ebe3c61f8dbf': {
    sqlJs: '1.16.0',
    glueSha256: '9b96118841c6edfdf53c6f388c1419d1f473cf469df6a6fc2864b386d60bdb5e',
    imports: { openat: 'x', close: 'e', seek: 'E', write: 'q', truncate: 'J' },
  },
};

export interface SqlJsBuild {
  /** The sql.js version the row was derived from (for people; nothing reads it). */
  sqlJs: string;
  glueSha256: string;
  /** The import names of `__syscall_openat`, `fd_close`, `fd_seek`, `fd_write`, `__syscall_ftruncate64`. */
  imports: Record<CapturedSyscall, string>;
}

export type CapturedSyscall = 'openat' | 'close' | 'seek' | 'write' | 'truncate';
