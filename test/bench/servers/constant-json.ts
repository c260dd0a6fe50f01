// The ceiling for any JSON endpoint on this machine: node:http answering a constant body.
import { createServer } from 'node:http';

const body = JSON.stringify({ type: 'table', column_names: ['id', 'name'], data: [[42, 'row 42']], context: { db: 'main' } });
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
