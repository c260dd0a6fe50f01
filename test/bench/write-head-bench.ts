// What a JSON answer's headers cost in node:http: set one by one with setHeader before writeHead (Node's
// slow path, how Tollgate wrote them before session 17) or all in writeHead's object (its fast path, what the
// model routes do now: Route.writesRequestId). No sockets: writeHead renders the header block alone.
// `node --import tsx test/bench/write-head-bench.ts`
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

const req = new IncomingMessage(new Socket());
req.method = 'POST';
req.httpVersionMajor = 1;
req.httpVersionMinor = 1;

function setHeaderFirst(): ServerResponse {
  const res = new ServerResponse(req);
  res.setHeader('x-request-id', 'req_3f9c0a1be27d4c55_1a2b');
  res.setHeader('x-tollgate-route', 'upstream/gpt-4o');
  res.setHeader('x-upstream-request-id', 'req_123');
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': 321, 'x-service-cost-usd': '0.000123' });
  return res;
}

function oneObject(): ServerResponse {
  const res = new ServerResponse(req);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': 321, 'x-request-id': 'req_3f9c0a1be27d4c55_1a2b', 'x-tollgate-route': 'upstream/gpt-4o', 'x-upstream-request-id': 'req_123', 'x-service-cost-usd': '0.000123' });
  return res;
}

const CALLS = 200_000;
const timings: Record<string, number[]> = { setHeaderFirst: [], oneObject: [] };
for (let round = 0; round < 5; round++) {
  for (const [label, write] of [['setHeaderFirst', setHeaderFirst], ['oneObject', oneObject]] as const) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) write();
    timings[label]!.push(Number(process.hrtime.bigint() - started) / CALLS);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`per answer: setHeader then writeHead ${median(timings.setHeaderFirst!).toFixed(0)} ns, one writeHead object ${median(timings.oneObject!).toFixed(0)} ns (median of 5 rounds)`);
