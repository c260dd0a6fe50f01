import assert from 'node:assert/strict';
import { statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';
import { SmallTmpfs } from '../../support/small-tmpfs.js';

const ROWS = 100_000;
const STREAM = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${ROWS}) SELECT x, printf('%.100c', 'r') AS pad FROM c`;

/**
 * A write's journal record fails (the disk fills up) while the NDJSON stream queued behind it is already
 * sending rows. The failed save reloads the database on a new worker, and every request the old worker had
 * not answered is posted to the new one: the stream too, though its header and rows already went out.
 */
describe('an NDJSON stream running while an earlier write fails to reach the disk', () => {
  let disk: SmallTmpfs;
  let gateway: RunningGateway | undefined;

  beforeEach(async () => {
    disk = SmallTmpfs.mount(24 * 1_048_576);
    const config = { sql: { auth: false, databases: { main: { file: 'main.sqlite' } } } };
    gateway = await startGateway(config, { baseDir: disk.dir });
    assert.equal((await postJson(`${gateway.url}/api/sql/query`, { query: 'CREATE TABLE t(b BLOB)' })).status, 200);
    // A clean close folds the journal into the base: reloading later needs no room on the disk.
    await gateway.close();
    gateway = await startGateway(config, { baseDir: disk.dir });
    // About 8 MiB left: the 16 MB write below is answered by the worker, then fails in the journal.
    const { bavail, bsize } = statfsSync(disk.dir);
    writeFileSync(join(disk.dir, 'filler'), Buffer.alloc(bavail * bsize - 8 * 1_048_576));
  });
  afterEach(async () => {
    await gateway?.close().catch(() => undefined);
    disk.unmount();
  });

  it('never sends a stream twice: one header line, and row lines that match the end line (or an error line)', async () => {
    const url = `${gateway!.url}/api/sql/query`;
    const write = postJson(url, { query: 'INSERT INTO t VALUES (randomblob(16000000))' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const streamed = postJson(url, { query: STREAM, format: 'ndjson' });
    const [written, stream] = await Promise.all([write, streamed]);
    assert.deepEqual([written.status, written.body.error_code], [503, 'database_unavailable']);

    assert.equal(stream.status, 200, stream.text.slice(0, 500));
    const lines = (stream.text as string).trimEnd().split('\n').map((line) => JSON.parse(line) as unknown);
    const headers = lines.filter((line) => (line as { type?: string }).type === 'table').length;
    const rows = lines.filter(Array.isArray) as [number, string][];
    const last = lines.at(-1) as { type: string; row_count?: number };
    assert.equal(headers, 1, `the stream's header line was sent ${headers} times (${rows.length} row lines, last line ${JSON.stringify(last).slice(0, 200)})`);
    if (last.type === 'end') {
      assert.equal(rows.length, last.row_count);
      assert.deepEqual(rows.map(([x]) => x), Array.from({ length: ROWS }, (_, i) => i + 1));
    } else assert.equal(last.type, 'error');
  });
});
