// The floor for a gateway that meters: like bare-proxy, but it parses the request (to validate it and
// pick the route), sends a re-serialized body upstream, and parses the answer (to read its usage) before
// writing it with a content-length. Whatever Tollgate costs beyond this is its own steps.
import { createServer } from 'node:http';
import { Agent } from 'undici';

const target = new URL(`${process.env.UPSTREAM_URL!}/chat/completions`);
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 256 });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', async () => {
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { model: string };
    // Agent#request with the target split once, as in bare-proxy.ts.
    const answer = await agent.request({ origin: target.origin, path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, model: 'gpt-4o' }) });
    const completion = (await answer.body.json()) as { usage?: unknown };
    const out = JSON.stringify({ ...completion, model: body.model });
    res.writeHead(answer.statusCode, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
    res.end(out);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
