// Derives the row of packages/middleware/src/sql/sqljs-build-table.ts for the installed sql.js build: which
// minified WebAssembly import is openat, close, fd_seek, fd_write and ftruncate. The names belong to one
// build, so they are found by behaviour, not read off the glue: every import is traced while a scratch
// database is created, written, vacuumed (the file shrinks) and closed, and each syscall is recognised by
// what it does to that database's file descriptor:
//   openat   the call whose path argument names the database file (`/dbfile_<n>`); it returns the fd
//   close    one argument, that fd, when the database closes
//   seek     (fd, i64 offset, whence, pointer)
//   truncate (fd, i64 length)
//   write    (fd, iov, iovcnt, pointer) whose calls, replayed as writes at the file position, rebuild the
//            file export() returns (a read has the same shape; replayed, it does not)
// usage: node scripts/derive-sqljs-build-table.mjs   (prints the row; check it with `npm test`)
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const wasmPath = require.resolve('sql.js/dist/sql-wasm.wasm');
const gluePath = require.resolve('sql.js/dist/sql-wasm.js');
const wasm = readFileSync(wasmPath);
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const initSqlJs = require('sql.js');

let memory;
let tracing = false;
const calls = [];
const SQL = await initSqlJs({
  instantiateWasm(imports, receive) {
    const env = imports[Object.keys(imports)[0]];
    for (const [name, original] of Object.entries(env)) {
      if (typeof original !== 'function') continue;
      env[name] = function (...args) {
        if (!tracing) return original.apply(this, args);
        const call = { name, args };
        const result = original.apply(this, args);
        call.result = result;
        const data = snapshotIovs(args);
        if (data) call.data = data.subarray(0, new DataView(memory.buffer).getUint32(args[3], true));
        if (args.length === 4 && typeof args[1] === 'bigint') call.newOffset = Number(new DataView(memory.buffer).getBigInt64(args[3], true));
        calls.push(call);
        return result;
      };
    }
    WebAssembly.instantiate(wasm, imports).then(({ instance }) => {
      memory = Object.values(instance.exports).find((value) => value instanceof WebAssembly.Memory);
      receive(instance);
    });
    return {};
  },
});

/** For calls shaped (fd, iov, iovcnt, pointer): the bytes the iovecs point at. */
function snapshotIovs(args) {
  if (!memory || args.length !== 4 || args.some((a) => typeof a !== 'number') || args[2] < 1 || args[2] > 64) return undefined;
  try {
    const view = new DataView(memory.buffer);
    const heap = new Uint8Array(memory.buffer);
    const parts = [];
    for (let i = 0; i < args[2]; i++) {
      const pointer = view.getUint32(args[1] + 8 * i, true);
      const length = view.getUint32(args[1] + 8 * i + 4, true);
      if (pointer + length > heap.length) return undefined;
      parts.push(Buffer.from(heap.subarray(pointer, pointer + length)));
    }
    return Buffer.concat(parts);
  } catch {
    return undefined;
  }
}

function cString(pointer) {
  if (typeof pointer !== 'number' || pointer <= 0 || pointer >= memory.buffer.byteLength) return '';
  const heap = new Uint8Array(memory.buffer);
  const end = heap.indexOf(0, pointer);
  return end < 0 || end - pointer > 512 ? '' : Buffer.from(heap.subarray(pointer, end)).toString('utf8');
}

tracing = true;
const db = new SQL.Database();
db.exec('PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY');
db.exec('CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB)');
db.exec('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200) INSERT INTO t(b) SELECT randomblob(2000) FROM c');
db.exec('DELETE FROM t WHERE id > 20');
db.exec('VACUUM');
db.exec('SELECT count(*) FROM t');
tracing = false;
const exported = Buffer.from(db.export());
tracing = true;
const closeFrom = calls.length;
db.close();
tracing = false;

const unique = (names, role) => {
  const distinct = [...new Set(names)];
  if (distinct.length !== 1) throw new Error(`cannot tell which import is ${role}: candidates ${JSON.stringify(distinct)}`);
  return distinct[0];
};
const opens = calls.filter((call) => call.args.length >= 3 && typeof call.result === 'number' && call.result >= 0 && /^\/?dbfile_\d+$/.test(cString(call.args[1])));
const openat = unique(opens.map((call) => call.name), 'openat');
const fds = new Set(opens.map((call) => call.result));
const onFd = calls.filter((call) => fds.has(call.args[0]));
const close = unique(calls.slice(closeFrom).filter((call) => call.args.length === 1 && fds.has(call.args[0])).map((call) => call.name), 'close');
const seek = unique(onFd.filter((call) => call.args.length === 4 && typeof call.args[1] === 'bigint').map((call) => call.name), 'seek');
const truncate = unique(onFd.filter((call) => call.args.length === 2 && typeof call.args[1] === 'bigint').map((call) => call.name), 'truncate');
const shaped = [...new Set(onFd.filter((call) => call.args.length === 4 && call.data).map((call) => call.name))];
/** Replays `name`'s calls as writes at each fd's position (seeks move it), with the truncations, in order. */
function replayAsWrites(name) {
  const position = new Map();
  let image = Buffer.alloc(0);
  for (const call of onFd) {
    const fd = call.args[0];
    if (call.name === seek && call.newOffset !== undefined) position.set(fd, call.newOffset);
    else if (call.name === truncate) image = Buffer.concat([image, Buffer.alloc(Math.max(0, Number(call.args[1]) - image.length))]).subarray(0, Number(call.args[1]));
    else if (call.data) {
      const at = position.get(fd) ?? 0;
      if (call.name === name) {
        if (image.length < at + call.data.length) image = Buffer.concat([image, Buffer.alloc(at + call.data.length - image.length)]);
        call.data.copy(image, at);
      }
      position.set(fd, at + call.data.length);
    }
  }
  return image;
}
const exportOnly = new Set([24, 25, 26, 27, 40, 41, 42, 43, 92, 93, 94, 95]);
const rebuilds = (image) => image.length === exported.length && image.every((byte, i) => byte === exported[i] || exportOnly.has(i));
const write = unique(shaped.filter((name) => rebuilds(replayAsWrites(name))), 'write');

const version = JSON.parse(readFileSync(new URL('../package.json', pathToFileURL(wasmPath)), 'utf8')).version;
console.log(`  '${sha256(wasm)}': {
    sqlJs: '${version}',
    glueSha256: '${sha256(readFileSync(gluePath))}',
    imports: { openat: '${openat}', close: '${close}', seek: '${seek}', write: '${write}', truncate: '${truncate}' },
  },`);
