// The floor for any gateway: read the body, forward it with undici over keep-alive, pipe the answer back.
// It calls Agent#request with the origin and path already split. undici's top-level request(url, opts)
// builds `{ ...opts, origin, path, method }` per call, and in Node 20's V8 an object spread followed by
// new keys gets a hidden class of its own every time: that costs a quarter of this proxy's CPU, which a
// floor should not carry (bare-proxy-top-level-request.ts is the same proxy written that way, for scale).
import { createServer } from 'node:http';
import { Agent } from 'undici';
import { answerMemoryProbes } from './memory-probes.js';

const target = new URL(`${process.env.UPSTREAM_URL!}/chat/completions`);
// PROXY_CONNECTIONS: the memory bench's one upstream connection per open stream (gateway-bench.ts).
const agent = new Agent({ keepAliveTimeout: 30_000, connections: Number(process.env.PROXY_CONNECTIONS ?? 256) });
const chunked = process.env.PROXY_CHUNKED === '1';

const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const answer = await agent.request({ origin: target.origin, path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) });
  // The upstream's length is forwarded, as a proxy does: without it Node frames the answer in chunks and writes the
  // last one's terminator in a write of its own, one more syscall and one more segment per answer for the load
  // generator (found in session 20; the gateway ratios before it were measured against that slower proxy, which
  // PROXY_CHUNKED=1 still runs, for comparison).
  const type = String(answer.headers['content-type']);
  const length = chunked ? undefined : (answer.headers['content-length'] as string | undefined);
  res.writeHead(answer.statusCode, length === undefined ? { 'content-type': type } : { 'content-type': type, 'content-length': length });
  for await (const chunk of answer.body) res.write(chunk);
  res.end();
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
answerMemoryProbes();
