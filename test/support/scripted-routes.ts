import type { ServerResponse } from 'node:http';
import { EventStreamCodec } from '@smithy/core/event-streams';
import type { ConfigInput } from '@tollgate/middleware';
import { TEST_KEY, startGateway, type RunningGateway } from './gateway.js';
import { startScripted, type Handler } from './scripted-provider.js';

export { TEST_KEY };

/**
 * One scripted upstream per provider kind (every answer written by hand, for the ones no fake gives) and a gateway
 * with one alias per kind: `gpt` (OpenAI, Responses clients translated through chat), `claude`, `gem`, `rock`.
 */
export async function startScriptedRoutes(overrides: Partial<ConfigInput> = {}) {
  const none: Handler = (_req, res) => {
    res.writeHead(500);
    res.end('{}');
  };
  const openai = await startScripted(none, '/v1');
  const anthropic = await startScripted(none, '');
  const gemini = await startScripted(none, '/v1beta');
  const bedrock = await startScripted(none, '');
  const config: ConfigInput = {
    defaultCatalog: false,
    keys: [{ key: TEST_KEY, org: 'acme' }],
    organizations: { acme: { wallet: 100 } },
    providers: {
      openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-fake-openai', retryBaseMs: 1, maxRetries: 0, responsesApi: false },
      anthropic: { kind: 'anthropic', baseUrl: anthropic.baseUrl, apiKey: 'sk-fake-anthropic', retryBaseMs: 1, maxRetries: 0 },
      google: { kind: 'gemini', baseUrl: gemini.baseUrl, apiKey: 'fake-gemini-key', retryBaseMs: 1, maxRetries: 0 },
      aws: { kind: 'bedrock', baseUrl: bedrock.baseUrl, apiKey: 'ABSKfakebedrockapikey0123456789abcdef', region: 'us-east-1', retryBaseMs: 1, maxRetries: 0 } as never,
    },
    models: {
      gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 }, maxOutputTokens: 16_384 },
      claude: { routes: [{ provider: 'anthropic', model: 'claude-sonnet-4-5' }], price: { input: 3, output: 15 }, maxOutputTokens: 64_000 },
      gem: { routes: [{ provider: 'google', model: 'gemini-2.5-pro' }], price: { input: 1.25, output: 10 }, maxOutputTokens: 65_536 },
      rock: { routes: [{ provider: 'aws', model: 'anthropic.claude-3-5-sonnet-20240620-v1:0' }], price: { input: 3, output: 15 }, maxOutputTokens: 8192 },
    },
    ...overrides,
  };
  const gateway: RunningGateway = await startGateway(config);
  return {
    openai,
    anthropic,
    gemini,
    bedrock,
    gateway,
    async close() {
      await gateway.close();
      await Promise.all([openai.close(), anthropic.close(), gemini.close(), bedrock.close()]);
    },
  };
}
export type ScriptedRoutes = Awaited<ReturnType<typeof startScriptedRoutes>>;

/** Writes `data:` SSE lines (OpenAI/Gemini framing). */
export function sendSse(res: ServerResponse, payloads: readonly unknown[], options: { done?: boolean; end?: boolean } = {}) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const p of payloads) res.write(`data: ${typeof p === 'string' ? p : JSON.stringify(p)}\n\n`);
  if (options.done) res.write('data: [DONE]\n\n');
  if (options.end !== false) res.end();
}

/** Writes raw bytes in given pieces. */
export async function sendPieces(res: ServerResponse, contentType: string, pieces: readonly Buffer[]) {
  res.writeHead(200, { 'content-type': contentType });
  for (const piece of pieces) {
    res.write(piece);
    await new Promise((r) => setTimeout(r, 5));
  }
  res.end();
}

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);

/** One AWS event-stream message for a ConverseStream event. */
export function bedrockFrame(type: string, payload: unknown): Buffer {
  return Buffer.from(
    codec.encode({
      headers: {
        ':event-type': { type: 'string', value: type },
        ':content-type': { type: 'string', value: 'application/json' },
        ':message-type': { type: 'string', value: 'event' },
      },
      body: Buffer.from(JSON.stringify({ ...(payload as object), p: 'abc' }), 'utf8'),
    }),
  );
}
