// The floor for any gateway: read the body, forward it with undici over keep-alive, pipe the answer back.
import { createServer } from 'node:http';
import { Agent, request } from 'undici';

const upstream = process.env.UPSTREAM_URL!;
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 256 });

const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const answer = await request(`${upstream}/chat/completions`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) });
  res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type']) });
  for await (const chunk of answer.body) res.write(chunk);
  res.end();
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
