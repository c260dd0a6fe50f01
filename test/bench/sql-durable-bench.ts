// Issue 16 benchmark: durable INSERTs/s through POST /api/sql/query on databases of 1, 32, 128 and 512 MiB,
// against node:http + libsql (WAL, synchronous=FULL), each server in its own process, in interleaved rounds;
// point selects against the same libsql server; recovery time after a 16 MiB journal; memory at the
// largest size. Reduced runs for a contended machine: BENCH_SQL_SIZES=1,32 BENCH_ROUNDS=2 BENCH_SECONDS=2.
import { closeSync, copyFileSync, fsyncSync, mkdtempSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { parseConfig } from '../../packages/middleware/src/config/index.js';
import { SqlService } from '../../packages/middleware/src/sql/index.js';
import { forkServer, memoryOf, type BenchProcess } from './bench-process.js';
import { CONNECTIONS, interleavedLoad, ratio, type Measured } from './interleaved-load.js';

const SIZES = (process.env.BENCH_SQL_SIZES ?? '1,32,128,512').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const MIB = 1_048_576;

const insert = JSON.stringify({ query: "INSERT INTO log VALUES (unixepoch(), 'written')", context: { db: 'disk' } });
const select = JSON.stringify({ query: 'SELECT id, name FROM items WHERE id = 42' });
const auth = { authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' };

/** A plain SQLite file of about `mib` MiB (rollback journal, as Tollgate's files were before the journal). */
function seed(file: string, mib: number): void {
  const db = new Database(file);
  db.exec('PRAGMA journal_mode = DELETE; CREATE TABLE filler(id INTEGER PRIMARY KEY, b BLOB); CREATE TABLE log(at INTEGER, note TEXT)');
  const rows = Math.max(1, Math.floor((mib * MIB) / 4_200));
  db.exec(`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${rows}) INSERT INTO filler(b) SELECT randomblob(4000) FROM c`);
  db.close();
}

function syncFile(file: string): void {
  const fd = openSync(file, 'r+');
  fsyncSync(fd);
  closeSync(fd);
}

export async function sqlDurableBench(): Promise<string> {
  const lines: string[] = [];
  const table: string[] = [];
  let memory = '';
  const started: BenchProcess[] = [];
  const dirs: string[] = [];
  try {
    for (const mib of SIZES) {
      const tollgateDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-size-'));
      const libsqlDir = mkdtempSync(join(tmpdir(), 'libsql-bench-size-'));
      dirs.push(tollgateDir, libsqlDir);
      seed(join(tollgateDir, 'bench.sqlite'), mib);
      copyFileSync(join(tollgateDir, 'bench.sqlite'), join(libsqlDir, 'bench.sqlite'));
      // Written back before any round: otherwise the kernel's writeback of the fresh copies stalls both servers' fsyncs.
      for (const file of [join(tollgateDir, 'bench.sqlite'), join(libsqlDir, 'bench.sqlite')]) syncFile(file);
      const bootStart = performance.now();
      const tollgate = await forkServer('sql-server', { BENCH_DISK_DIR: tollgateDir });
      const bootMs = performance.now() - bootStart;
      const libsql = await forkServer('libsql-server', { BENCH_DISK_FILE: join(libsqlDir, 'bench.sqlite') });
      started.push(tollgate, libsql);
      const [ours, theirs] = await interleavedLoad(
        [
          { name: `Tollgate durable insert, ${mib} MiB`, url: `${tollgate.url}/api/sql/query`, headers: auth, body: insert },
          { name: `node:http + libsql durable insert, ${mib} MiB`, url: `${libsql.url}/api/sql/query`, body: insert },
        ],
        { rounds: ROUNDS, seconds: SECONDS },
      );
      table.push(row(ours!, theirs!, mib, bootMs));
      if (mib === Math.max(...SIZES)) {
        const [t, l] = await Promise.all([memoryOf(tollgate), memoryOf(libsql)]);
        memory = `Memory after the ${mib} MiB rounds (RSS, worker included): Tollgate ${Math.round(t.rss / MIB)} MiB, node:http + libsql ${Math.round(l.rss / MIB)} MiB.`;
      }
      if (mib === SIZES[0]) {
        const [reads, libsqlReads] = await interleavedLoad(
          [
            { name: 'Tollgate point select (auth on)', url: `${tollgate.url}/api/sql/query`, headers: auth, body: select },
            { name: 'node:http + libsql point select (no auth)', url: `${libsql.url}/api/sql/query`, body: select },
          ],
          { rounds: ROUNDS, seconds: SECONDS },
        );
        lines.push(`Point selects: Tollgate ${Math.round(reads!.rps)} req/s (p99 ${reads!.p99} ms), libsql ${Math.round(libsqlReads!.rps)} req/s (p99 ${libsqlReads!.p99} ms); ratio ${ratio(reads!, libsqlReads!).toFixed(2)} (target ≥ 1.0; rounds ${reads!.rounds.join(' ')} vs ${libsqlReads!.rounds.join(' ')}).`);
      }
      tollgate.stop();
      libsql.stop();
    }
    for (const baseMib of new Set([SIZES[0]!, Math.max(...SIZES)])) lines.push(await recoveryAfterJournal(16, baseMib));
  } finally {
    for (const p of started) p.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
  return [
    `### SQL durable writes by database size (${CONNECTIONS} connections; ${ROUNDS} interleaved rounds of ${SECONDS} s after a warm-up round; medians)`,
    '',
    '| MiB | Tollgate inserts/s | p50 / p99 ms | libsql inserts/s | p50 / p99 ms | ratio (target ≥ 0.5) | Tollgate start ms | rounds (Tollgate; libsql) |',
    '|---:|---:|---:|---:|---:|---:|---:|---|',
    ...table,
    '',
    ...lines,
    memory,
  ].join('\n');
}

function row(ours: Measured, theirs: Measured, mib: number, bootMs: number): string {
  return `| ${mib} | ${Math.round(ours.rps)} | ${ours.p50} / ${ours.p99} | ${Math.round(theirs.rps)} | ${theirs.p50} / ${theirs.p99} | ${ratio(ours, theirs).toFixed(2)} | ${Math.round(bootMs)} | ${ours.rounds.join(' ')}; ${theirs.rounds.join(' ')} |`;
}

/**
 * On a `baseMib` MiB database, fills a journal with `mib` MiB of records (segments large enough never to checkpoint), leaves it as a
 * crash would (no close), and times a new SqlService on a copy of the files: recovery + boot checkpoint +
 * worker start + the first query.
 */
async function recoveryAfterJournal(mib: number, baseMib: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-bench-recovery-'));
  const copy = mkdtempSync(join(tmpdir(), 'tollgate-bench-recovery-copy-'));
  try {
    seed(join(dir, 'main.sqlite'), baseMib);
    const { config } = parseConfig({ sql: { databases: { main: { file: 'main.sqlite' } }, journalSegmentBytes: 4 * mib * MIB } });
    const writer = await SqlService.open(config.sql, { baseDir: dir });
    await writer.query({ query: 'CREATE TABLE journaled(at INTEGER, note TEXT, pad BLOB)' });
    const journalBytes = () => readdirSync(dir).filter((n) => n.includes('-tgj.')).reduce((sum, n) => sum + statSync(join(dir, n)).size, 0);
    while (journalBytes() < mib * MIB) {
      await Promise.all(Array.from({ length: 32 }, () => writer.query({ query: "INSERT INTO journaled VALUES (unixepoch(), 'written', randomblob(200))" })));
    }
    for (const name of readdirSync(dir)) copyFileSync(join(dir, name), join(copy, name));
    const records = journalBytes();
    await writer.close();
    const t0 = performance.now();
    const recovered = await SqlService.open(config.sql, { baseDir: copy });
    await recovered.ready();
    const answer = await recovered.query({ query: 'SELECT count(*) FROM journaled' });
    const ms = performance.now() - t0;
    await recovered.close();
    const rows = answer.type === 'table' ? answer.data[0]![0] : '?';
    return `Recovery of a ${baseMib} MiB database after a ${(records / MIB).toFixed(1)} MiB journal (${rows} rows journaled; base ${(statSync(join(copy, 'main.sqlite')).size / MIB).toFixed(1)} MiB after its boot checkpoint): ${Math.round(ms)} ms from SqlService.open to the first answer.`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(copy, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await sqlDurableBench());
  process.exit(0);
}
