import { FakeServer, FakeSse, countWords, echoReply, textOfMessages, type FakeContext } from './fake-server.js';

export const FAKE_GEMINI_KEY = 'fake-gemini-key';

const statuses: Record<number, string> = { 400: 'INVALID_ARGUMENT', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE' };

/** Google's error body: `{error: {code, message, status}}`. */
function geminiError(status: number, message: string) {
  return { error: { code: status, message, status: statuses[status] ?? 'UNKNOWN' } };
}

/**
 * A fake Gemini (v1beta) on the shared fake harness: `generateContent`,
 * `streamGenerateContent?alt=sse` (each event a whole GenerateContentResponse, the last with
 * `finishReason` and `usageMetadata`, as in the recorded google-* streams) and `batchEmbedContents`,
 * checking `x-goog-api-key`.
 *
 * @example
 * const gemini = await startFakeGemini();   // baseUrl http://127.0.0.1:PORT/v1beta
 */
export async function startFakeGemini(): Promise<FakeServer> {
  return new FakeServer(route, '/v1beta', geminiError).start();
}

function route(ctx: FakeContext): void {
  const { req, res, url, fake } = ctx;
  if (req.headers['x-goog-api-key'] !== FAKE_GEMINI_KEY) return fake.sendError(res, 403, 'API key not valid. Please pass a valid API key.');
  const match = /^\/v1beta\/models\/([^:]+):(generateContent|streamGenerateContent|batchEmbedContents)$/.exec(url.pathname);
  if (req.method !== 'POST' || !match) return fake.sendError(res, 404, `Not found: ${url.pathname}`);
  if (match[2] === 'batchEmbedContents') return embed(ctx);
  if (match[2] === 'streamGenerateContent' && url.searchParams.get('alt') !== 'sse') return fake.sendError(res, 400, 'alt=sse expected');
  generate(ctx, match[1]!, match[2] === 'streamGenerateContent');
}

function generate(ctx: FakeContext, model: string, stream: boolean): void {
  const { body, fake } = ctx;
  const contents = (body?.contents ?? []) as { role: string; parts: { text?: string }[] }[];
  const lastUser = [...contents].reverse().find((c) => c.role === 'user');
  const structured = body?.generationConfig?.responseMimeType === 'application/json' && fake.reply_.json !== undefined;
  const text = structured ? JSON.stringify(fake.reply_.json) : (fake.reply_.text ?? echoReply(textOfMessages(lastUser?.parts ?? [])));
  const calls = fake.reply_.toolCalls ?? [];
  const promptTokens = countWords(textOfMessages(contents.map((c) => c.parts), body?.systemInstruction?.parts));
  const outputTokens = countWords(calls.length > 0 ? calls.map((c) => JSON.stringify(c.arguments)).join(' ') : text);
  const cached = fake.reply_.cachedTokens ? { cachedContentTokenCount: fake.reply_.cachedTokens } : {};
  const usageMetadata = fake.usageWith({ promptTokenCount: promptTokens, candidatesTokenCount: outputTokens, totalTokenCount: promptTokens + outputTokens, ...cached });
  const base = { modelVersion: model, responseId: `fake${Date.now()}` };
  const parts = calls.length > 0 ? calls.map((call) => ({ functionCall: { name: call.name, args: call.arguments } })) : [{ text }];
  if (!stream) {
    return json(ctx, { candidates: [{ content: { parts, role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata, ...base });
  }
  const sse = new FakeSse(ctx.res, fake.dropAfter, (value) => fake.serialize(value));
  const frames: unknown[] = (calls.length > 0 ? parts.map((part) => [part]) : text.split(/(?<=\s)/).map((word) => [{ text: word }])).map((chunkParts) => ({
    candidates: [{ content: { parts: chunkParts, role: 'model' }, index: 0 }],
    usageMetadata: { promptTokenCount: promptTokens, totalTokenCount: promptTokens, ...cached },
    ...base,
  }));
  frames.push({ candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata, ...base });
  for (const frame of frames) if (!sse.send(frame)) return;
  sse.end();
}

function embed(ctx: FakeContext): void {
  const requests = (ctx.body?.requests ?? []) as { content: { parts: { text: string }[] }; outputDimensionality?: number }[];
  json(ctx, {
    embeddings: requests.map((r) => {
      const text = r.content.parts.map((p) => p.text).join(' ');
      return { values: Array.from({ length: r.outputDimensionality ?? 8 }, (_, i) => Number(((((text.length + 1) * (i + 1)) % 97) / 97).toFixed(6))) };
    }),
  });
}

function json(ctx: FakeContext, body: unknown): void {
  const text = ctx.fake.serialize(body);
  ctx.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  ctx.res.end(text);
}
