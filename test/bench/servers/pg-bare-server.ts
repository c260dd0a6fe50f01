// The comparison for the postgres kind: node:http + a pg pool of the same size, the same request and answer
// shape as POST /api/sql/query (`?` params as `$n` already), no authentication, no transaction wrapping.
import { createServer } from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.BENCH_PG_URL!, max: 16 });
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', async () => {
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { query: string; params?: unknown[] };
      const result = await pool.query({ text: body.query, values: body.params ?? [], rowMode: 'array' });
      const answer = result.fields.length > 0 ? { type: 'table', column_names: result.fields.map((f) => f.name), data: result.rows, context: { db: 'main' } } : { type: 'ok', affected_rows: result.rowCount, context: { db: 'main' } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    } catch (error) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error_message: (error as Error).message }));
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
process.on('message', (message) => {
  if (message === 'exit') process.exit(0); // lets --cpu-prof write its profile
});
