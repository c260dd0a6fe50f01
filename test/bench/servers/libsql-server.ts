// The comparison for the SQL endpoint: node:http + libsql (SQLite's fork, native), the same request shape
// as POST /api/sql/query. `disk` is a file database in WAL mode with synchronous=FULL (every commit is
// fsynced before the answer); `main` is in memory with the point-select table. No authentication.
import { createServer } from 'node:http';
import Database from 'libsql';

const disk = new Database(process.env.BENCH_DISK_FILE!);
disk.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; CREATE TABLE IF NOT EXISTS log(at INTEGER, note TEXT)');
const memory = new Database(':memory:');
memory.exec("CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1000) INSERT INTO items SELECT x, 'row ' || x FROM c");
type Connection = InstanceType<typeof Database>;
const databases: Record<string, Connection> = { main: memory, disk };
/** The part of libsql's Statement used here. */
interface Prepared {
  reader: boolean;
  raw(toggle: boolean): { all(...params: unknown[]): unknown[] };
  columns(): { name: string }[];
  run(...params: unknown[]): { changes: number };
}
const prepared = new Map<string, Prepared>();

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { query: string; params?: unknown[]; context?: { db?: string } };
      const name = body.context?.db ?? 'main';
      const key = `${name}\n${body.query}`;
      let statement = prepared.get(key);
      if (!statement) prepared.set(key, (statement = databases[name]!.prepare(body.query) as unknown as Prepared));
      const params = body.params ?? [];
      let answer: unknown;
      if (statement.reader) {
        const data = statement.raw(true).all(...params);
        answer = { type: 'table', column_names: statement.columns().map((c) => c.name), data, context: { db: name } };
      } else {
        answer = { type: 'ok', affected_rows: statement.run(...params).changes, context: { db: name } };
      }
      const json = JSON.stringify(answer);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) }).end(json);
    } catch (error) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error_message: (error as Error).message }));
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
process.on('message', (message) => {
  if (message !== 'memory') return;
  const { rss, heapUsed } = process.memoryUsage();
  process.send?.({ rss, heapUsed });
});
