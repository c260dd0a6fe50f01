// json-proxy.ts's work — parse the request, send it re-serialized with the model renamed, parse the answer and
// write it back with the alias and a content-length — with the least machinery around it: the body's chunks taken
// as they come, undici's dispatch with a handler of its own (no body stream, no body.json() promise), no spreads.
// Added in session 20: json-proxy.ts costs ~1.15× the bare proxy's CPU per request and this one ~1.03×, so most
// of json-proxy's cost is its helpers, not the parsing a metering gateway cannot skip.
import { createServer } from 'node:http';
import { Agent, type Dispatcher } from 'undici';

const target = new URL(`${process.env.UPSTREAM_URL!}/chat/completions`);
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 256 });
const upstreamHeaders = { 'content-type': 'application/json' };

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString()) as { model: string };
    const alias = body.model;
    body.model = 'gpt-4o';
    const parts: Buffer[] = [];
    let status = 0;
    const handler: Dispatcher.DispatchHandler = {
      onConnect() {},
      onHeaders(statusCode: number) { status = statusCode; return true; },
      onData(chunk: Buffer) { parts.push(chunk); return true; },
      onComplete() {
        const completion = JSON.parse((parts.length === 1 ? parts[0]! : Buffer.concat(parts)).toString()) as { model: string };
        completion.model = alias;
        const out = JSON.stringify(completion);
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
        res.end(out);
      },
      onError(error: Error) { res.destroy(error); },
    };
    agent.dispatch({ origin: target.origin, path: target.pathname, method: 'POST', headers: upstreamHeaders, body: JSON.stringify(body) }, handler);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
