// A SqlService on a file database with small journal segments, run as a child process so the crash test
// can SIGKILL it. 16 clients commit a random mix of requests until the process dies. One line per event on
// stdout (a pipe: written synchronously):
//   P <op> <key> <value>   about to send (may or may not survive the kill)
//   A <op> <key> <value>   acknowledged: must survive
//   E <key>                failed as intended: must never be visible
//   X <event>              journal moments; READY once open
// TG_CRASH_KILL_AT_WRITE=n: the child SIGKILLs itself after its n-th write into the base file (mid-checkpoint).
import { parseConfig } from '../../../packages/middleware/src/config/index.js';
import { SqlService } from '../../../packages/middleware/src/sql/index.js';

const [dir, run] = process.argv.slice(2) as [string, string];
const out = (line: string) => process.stdout.write(`${line}\n`);
let killAfterWrites = Number(process.env.TG_CRASH_KILL_AT_WRITE ?? 0);

out('X boot-start');
const { config } = parseConfig({ sql: { databases: { main: { file: 'main.sqlite' } }, journalSegmentBytes: 65_536, timeoutMs: 30_000 } });
const service = await SqlService.open(config.sql, {
  baseDir: dir,
  onJournalEvent: (event) => {
    out(`X ${event}`);
    if (event === 'checkpoint-write' && killAfterWrites > 0 && --killAfterWrites === 0) {
      out('X fault-kill');
      process.kill(process.pid, 'SIGKILL');
    }
  },
});
await service.ready();
out('X READY');

const rand = (n: number) => Math.floor(Math.random() * n);
let sequence = 0;

async function client(c: number): Promise<void> {
  const mine: string[] = [];
  let counter = -1;
  for (;;) {
    const roll = Math.random();
    const key = `${run}-${c}-${sequence++}`;
    if (roll < 0.45 || mine.length === 0) {
      const value = `v${rand(1e9)}`;
      const pad = Math.random() < 0.1 ? 5000 + rand(20000) : rand(1500);
      out(`P I ${key} ${value}`);
      await service.query({ query: 'INSERT INTO acked(k, v, pad) VALUES (?, ?, randomblob(?))', params: [key, value, pad] });
      out(`A I ${key} ${value}`);
      mine.push(key);
    } else if (roll < 0.6) {
      const k = mine[rand(mine.length)]!;
      const value = `u${rand(1e9)}`;
      out(`P U ${k} ${value}`);
      await service.query({ query: 'UPDATE acked SET v = ? WHERE k = ?', params: [value, k] });
      out(`A U ${k} ${value}`);
    } else if (roll < 0.7) {
      const k = mine.splice(rand(mine.length), 1)[0]!;
      out(`P D ${k} -`);
      await service.query({ query: 'DELETE FROM acked WHERE k = ?', params: [k] });
      out(`A D ${k} -`);
    } else if (roll < 0.78) {
      counter++;
      out(`P C ${c} ${counter}`);
      await service.query({ query: 'INSERT INTO counters(id, n) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET n = excluded.n', params: [c, counter] });
      out(`A C ${c} ${counter}`);
    } else if (roll < 0.86) {
      // Writes, then fails: rolled back, must never be visible.
      await service.query({ query: "INSERT INTO acked(k, v, pad) VALUES (?, 'never', randomblob(3000)); INSERT INTO no_such_table VALUES (1)", params: [`F${key}`] }).then(
        () => out(`BUG a failing request succeeded`),
        () => out(`E F${key}`),
      );
    } else if (roll < 0.95) {
      // Churn that gives pages back to the file system (auto_vacuum = FULL: the file shrinks, truncations in the journal).
      await service.query({
        query: 'DELETE FROM filler WHERE id IN (SELECT id FROM filler ORDER BY random() LIMIT ?); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) INSERT INTO filler(b) SELECT randomblob(1000 + abs(random()) % 3000) FROM c',
        params: [rand(60), rand(40)],
      });
    } else if (roll < 0.955) {
      // More dirty pages than the page cache holds: SQLite spills mid-transaction, and a failure after a spill
      // writes the old pages back.
      await service.query({ query: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000) INSERT INTO filler(b) SELECT randomblob(1000) FROM c; DELETE FROM filler WHERE id IN (SELECT id FROM filler ORDER BY id DESC LIMIT 2900)' });
    } else {
      await service.query({ query: 'SELECT count(*) FROM acked' });
    }
  }
}

for (let c = 0; c < 16; c++) client(c).catch((error: unknown) => out(`BUG client ${c}: ${String((error as Error).message).replace(/\s+/g, '_')}`));
