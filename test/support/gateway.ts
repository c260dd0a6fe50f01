import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tollgate, type ConfigInput, type Tollgate, type TollgateOptions } from '@tollgate/middleware';

export const TEST_KEY = 'tg-test-key-0001-0123456789abcdef';

export interface RunningGateway {
  url: string;
  gate: Tollgate;
  server: Server;
  close(): Promise<void>;
}

/** Starts Tollgate mounted in a plain node:http server on 127.0.0.1, port 0. */
export async function startGateway(config: ConfigInput, options: TollgateOptions = {}): Promise<RunningGateway> {
  // Internal errors are bugs: print them, keep the rest quiet.
  const gate = tollgate(config, { logger: { info() {}, error: (message, error) => console.error(message, error) }, ...options });
  const server = createServer(gate);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    gate,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await gate.close();
    },
  };
}

/** POSTs JSON and returns status, headers and the parsed (or raw) body, for assertions on the bytes. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** Reads an SSE response whole: `data:` payloads and whether it ended cleanly or broke. */
export async function readSse(response: Response): Promise<{ events: { event?: string; data: string }[]; broke: boolean }> {
  const events: { event?: string; data: string }[] = [];
  let text = '';
  let broke = false;
  try {
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
  } catch {
    broke = true;
  }
  for (const frame of text.split('\n\n')) {
    const lines = frame.split('\n');
    const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
    const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
    if (data) events.push(event ? { event, data } : { data });
  }
  return { events, broke };
}
