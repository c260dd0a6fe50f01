// SIGKILL at random moments (during commits, background checkpoints and start-up recovery) of a child that
// commits through SqlService (crash-child.ts), then an independent recovery of the files and checks:
// PRAGMA integrity_check is ok, every acknowledged write is there (a write in flight at the kill may or
// may not be), and nothing from a request that failed is visible.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { SqlJsStatic } from 'sql.js';
import { recoverDatabase } from '../../../packages/middleware/src/sql/index.js';

type Row = { v: string } | null;

export interface CrashSummary {
  runs: number;
  acknowledged: number;
  killedDuringBoot: number;
  killedDuringCheckpoint: number;
  faultKills: number;
  failures: string[];
}

const loadSqlJs = () => (createRequire(import.meta.url)('sql.js') as () => Promise<SqlJsStatic>)();

/** Starts from a database file written the way Tollgate wrote them before the journal (a plain image). */
export async function seedDatabase(dir: string): Promise<void> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  // FULL: each commit that frees pages truncates the file (no PRAGMA needed per request: the statement policy refuses them).
  db.exec(`PRAGMA auto_vacuum = FULL;
    CREATE TABLE acked(k TEXT PRIMARY KEY, v TEXT NOT NULL, pad BLOB) WITHOUT ROWID;
    CREATE TABLE counters(id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
    CREATE TABLE filler(id INTEGER PRIMARY KEY AUTOINCREMENT, b BLOB);
    CREATE TABLE audit(id INTEGER PRIMARY KEY, k TEXT);
    CREATE TRIGGER acked_audit AFTER INSERT ON acked BEGIN INSERT INTO audit(k) VALUES (new.k); END;
    WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000) INSERT INTO filler(b) SELECT randomblob(1000) FROM c;`);
  writeFileSync(join(dir, 'main.sqlite'), db.export());
  db.close();
}

/** Runs `runs` kill-and-verify rounds on one directory, each child recovering what the previous left. */
export async function crashRuns(dir: string, runs: number, maxKillMs: number): Promise<CrashSummary> {
  const SQL = await loadSqlJs();
  const keys = new Map<string, { state: Row; pending?: Row }>();
  const counters = new Map<string, { acked: number; pending?: number }>();
  const failed = new Set<string>();
  const summary: CrashSummary = { runs: 0, acknowledged: 0, killedDuringBoot: 0, killedDuringCheckpoint: 0, faultKills: 0, failures: [] };

  for (let run = 1; run <= runs; run++) {
    const env = Math.random() < 0.3 ? { ...process.env, TG_CRASH_KILL_AT_WRITE: String(1 + Math.floor(Math.random() * 30)) } : process.env;
    const child = spawn(process.execPath, ['--conditions=tollgate-source', '--import', 'tsx', fileURLToPath(new URL('./crash-child.ts', import.meta.url)), dir, String(run)], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let booted = false;
    let inCheckpoint = false;
    const lines = createInterface({ input: child.stdout });
    const closed = new Promise((resolve) => lines.once('close', resolve));
    lines.on('line', (line) => {
      const [tag, a, b, c] = line.split(' ') as [string, string, string, string];
      if (tag === 'X') {
        if (a === 'READY') booted = true;
        else if (a.endsWith('checkpoint-start')) inCheckpoint = true;
        else if (a.endsWith('checkpoint-end')) inCheckpoint = false;
        else if (a === 'fault-kill') summary.faultKills++;
      } else if (tag === 'P') {
        if (a === 'C') counters.set(b, { acked: counters.get(b)?.acked ?? -1, pending: Number(c) });
        else keys.set(b, { state: keys.get(b)?.state ?? null, pending: a === 'D' ? null : { v: c } });
      } else if (tag === 'A') {
        summary.acknowledged++;
        if (a === 'C') counters.set(b, { acked: Number(c) });
        else keys.set(b, { state: a === 'D' ? null : { v: c } });
      } else if (tag === 'E') failed.add(a);
      else if (tag === 'BUG') summary.failures.push(`run ${run}: ${line}`);
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const kill = () => {
      if (!booted) summary.killedDuringBoot++;
      if (inCheckpoint) summary.killedDuringCheckpoint++;
      child.kill('SIGKILL');
    };
    // Every third round during start-up (recovery and its checkpoint), the others once it serves: counted from
    // READY, so a slow start on a busy machine does not turn every round into a start-up kill.
    let timer: NodeJS.Timeout | undefined;
    if (run % 3 === 0) timer = setTimeout(kill, 100 + Math.random() * 1_200);
    else lines.on('line', (line) => void (line === 'X READY' && (timer = setTimeout(kill, 50 + Math.random() * maxKillMs))));
    const { code, signal } = await exited;
    clearTimeout(timer);
    await closed;
    if (signal !== 'SIGKILL') summary.failures.push(`run ${run}: child exited with ${code}: ${stderr.slice(0, 800)}`);

    const db = new SQL.Database((await recoverDatabase(join(dir, 'main.sqlite'))).image);
    const integrity = db.exec('PRAGMA integrity_check')[0]!.values.map(([v]) => v).join('; ');
    if (integrity !== 'ok') summary.failures.push(`run ${run}: integrity_check: ${integrity.slice(0, 300)}`);
    const rows = new Map((db.exec('SELECT k, v FROM acked')[0]?.values ?? []).map(([k, v]) => [k as string, v as string]));
    for (const [k, entry] of keys) {
      const actual: Row = rows.has(k) ? { v: rows.get(k)! } : null;
      const same = (expected: Row) => (expected === null ? actual === null : actual?.v === expected.v);
      if (!same(entry.state) && !(entry.pending !== undefined && same(entry.pending))) {
        summary.failures.push(`run ${run}: key ${k} on disk ${JSON.stringify(actual)}, acknowledged ${JSON.stringify(entry.state)}, in flight ${JSON.stringify(entry.pending)}`);
      }
      keys.set(k, { state: actual }); // what the crash decided for a write in flight
    }
    const stored = new Map((db.exec('SELECT id, n FROM counters')[0]?.values ?? []).map(([id, n]) => [String(id), n as number]));
    for (const [id, entry] of counters) {
      const n = stored.get(id) ?? -1;
      if (n !== entry.acked && n !== entry.pending) summary.failures.push(`run ${run}: counter ${id} on disk ${n}, acknowledged ${entry.acked}, in flight ${entry.pending}`);
      counters.set(id, { acked: n });
    }
    for (const k of failed) if (rows.has(k)) summary.failures.push(`run ${run}: the failed request's row ${k} is visible`);
    db.close();
    summary.runs++;
  }
  return summary;
}
