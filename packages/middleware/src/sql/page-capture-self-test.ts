import type { SqlJsStatic } from 'sql.js';
import type { PageCapture } from './page-capture.js';
import { PageImage } from './page-image.js';

/** Header bytes sql.js's export() rewrites through its own backup: change counter, schema cookie, version-valid-for. */
const exportOnlyHeaderBytes = new Set([24, 25, 26, 27, 40, 41, 42, 43, 92, 93, 94, 95]);

/**
 * Proves, on a scratch database, that replaying the captured writes rebuilds the file exactly as export()
 * sees it, through growth, overflow pages, WITHOUT ROWID tables, deletes and a VACUUM that shrinks the
 * file. Throws if not: a worker that cannot trust its capture must not start.
 *
 * @example
 * checkPageCapture(SQL, capture); // throws 'page capture self-test: byte 4100 differs'
 */
export function checkPageCapture(SQL: SqlJsStatic, capture: PageCapture): void {
  const db = new SQL.Database();
  const rebuilt = new PageImage();
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY; PRAGMA cache_size = 20');
    for (const sql of [
      'CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB); CREATE TABLE w(k PRIMARY KEY, v) WITHOUT ROWID',
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 120) INSERT INTO t(b) SELECT randomblob(1500) FROM c',
      "INSERT INTO w SELECT 'k' || id, randomblob(6000) FROM t WHERE id % 10 = 0",
      'DELETE FROM t WHERE id % 3 = 0; DELETE FROM w',
      'VACUUM',
    ]) {
      db.exec(sql);
      rebuilt.apply(capture.take(db));
    }
    const exported = db.export();
    capture.take(db); // export's private copy
    const mine = rebuilt.bytes();
    if (mine.length !== exported.length) throw new Error(`page capture self-test: the captured writes rebuild ${mine.length} bytes, export() has ${exported.length}`);
    for (let i = 0; i < mine.length; i++) {
      if (mine[i] !== exported[i] && !exportOnlyHeaderBytes.has(i)) throw new Error(`page capture self-test: byte ${i} of the rebuilt file differs from export()`);
    }
  } finally {
    db.close();
  }
}
