// The floor for SQL answered by a worker thread, as the design requires: read and parse the JSON body,
// one postMessage round trip to a worker that answers a constant row, write the JSON answer. No SQL,
// no authentication — what any server that keeps its database off the event loop pays per request.
import { createServer } from 'node:http';
import { Worker } from 'node:worker_threads';

const worker = new Worker(
  `const { parentPort } = require('node:worker_threads');
   parentPort.on('message', ({ id }) => parentPort.postMessage({ id, type: 'table', column_names: ['id', 'name'], data: [[42, 'row 42']] }));`,
  { eval: true },
);
const waiting = new Map<number, (answer: { type: string; column_names: string[]; data: unknown[][] }) => void>();
worker.on('message', ({ id, ...answer }) => {
  waiting.get(id)?.(answer);
  waiting.delete(id);
});
let nextId = 0;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const { query } = JSON.parse(Buffer.concat(chunks).toString()) as { query: string };
    const id = ++nextId;
    waiting.set(id, (answer) => {
      const body = JSON.stringify({ ...answer, context: { db: 'main' } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    worker.postMessage({ id, query });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
