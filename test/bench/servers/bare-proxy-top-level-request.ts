// bare-proxy.ts as most code would write it, with undici's top-level request(url, opts): shown beside the
// floor because that wrapper's per-call object spread costs a quarter of the proxy's CPU in Node 20.
import { createServer } from 'node:http';
import { Agent, request } from 'undici';

const upstream = process.env.UPSTREAM_URL!;
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 256 });

const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const answer = await request(`${upstream}/chat/completions`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) });
  // The upstream's length forwarded, as in bare-proxy.ts.
  const type = String(answer.headers['content-type']);
  const length = answer.headers['content-length'] as string | undefined;
  res.writeHead(answer.statusCode, length === undefined ? { 'content-type': type } : { 'content-type': type, 'content-length': length });
  for await (const chunk of answer.body) res.write(chunk);
  res.end();
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
