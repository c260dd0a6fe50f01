import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse, body: any, n: number) => void | Promise<void>;

/**
 * A provider whose every answer the test writes by hand: for answers no fake provider would give (a 200 of the
 * wrong shape, a usage without counts, a stream kept open after its end). `prefix` is its base URL's path.
 */
export async function startScripted(handler: Handler, prefix = '/v1') {
  let count = 0;
  const bodies: any[] = [];
  const sockets = new Set<Socket>();
  const state = { handler };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      bodies.push(body);
      void state.handler(req, res, body, count++);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${prefix}`,
    bodies,
    get count() {
      return count;
    },
    set(next: Handler) {
      state.handler = next;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function chatCompletion(content: string | string[], usage: unknown, finish = 'stop') {
  const contents = Array.isArray(content) ? content : [content];
  return {
    id: 'chatcmpl-x',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o',
    choices: contents.map((c, index) => ({ index, message: { role: 'assistant', content: c, refusal: null }, logprobs: null, finish_reason: finish })),
    ...(usage === undefined ? {} : { usage }),
  };
}

/** An SSE answer of named events (Anthropic's framing), ended unless `end` is false. */
export function sendEvents(res: ServerResponse, events: readonly ({ type: string } & Record<string, unknown>)[], options: { end?: boolean } = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const event of events) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  if (options.end !== false) res.end();
}
