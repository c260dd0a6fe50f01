import { FakeServer, FakeSse, countWords, echoReply, textOfMessages, type FakeContext } from './fake-server.js';

export const FAKE_ANTHROPIC_KEY = 'sk-fake-anthropic';

const errorTypes: Record<number, string> = { 400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error', 413: 'request_too_large', 429: 'rate_limit_error', 500: 'api_error', 529: 'overloaded_error' };

/** Anthropic's error body: `{type: "error", error: {type, message}}`. */
function anthropicError(status: number, message: string) {
  return { type: 'error', error: { type: errorTypes[status] ?? 'api_error', message } };
}

let sequence = 0;

/**
 * A fake Anthropic: messages (JSON and the SSE event sequence message_start, content_block_start, ping,
 * content_block_delta, content_block_stop, message_delta, message_stop), tool_use blocks and
 * count_tokens, checking `x-api-key` and `anthropic-version`. Base URL has no `/v1`, like the SDK's.
 *
 * @example
 * const anthropic = await startFakeAnthropic();
 * anthropic.dropAfterChunks(3);
 */
export async function startFakeAnthropic(options: { apiKey?: string } = {}): Promise<FakeServer> {
  const apiKey = options.apiKey ?? FAKE_ANTHROPIC_KEY;
  const fake = new FakeServer((ctx) => route(ctx, apiKey), '', anthropicError, 'request-id');
  return fake.start();
}

function route(ctx: FakeContext, apiKey: string): void {
  const { req, res, url, fake } = ctx;
  if (req.headers['x-api-key'] !== apiKey) return fake.sendError(res, 401, 'invalid x-api-key');
  if (!req.headers['anthropic-version']) return fake.sendError(res, 400, 'anthropic-version: header is required');
  if (req.method === 'POST' && url.pathname === '/v1/messages') return messages(ctx);
  if (req.method === 'POST' && url.pathname === '/v1/messages/count_tokens') return json(ctx, { input_tokens: countWords(textOfMessages(ctx.body?.messages, ctx.body?.system)) });
  fake.sendError(res, 404, `Not found: ${url.pathname}`);
}

function messages(ctx: FakeContext): void {
  const { body, fake } = ctx;
  if (typeof body?.max_tokens !== 'number') return fake.sendError(ctx.res, 400, 'max_tokens: Field required');
  const history = (body.messages ?? []) as { role: string; content: unknown }[];
  const lastUser = [...history].reverse().find((m) => m.role === 'user');
  const text = fake.reply_.text ?? echoReply(textOfMessages(lastUser ? [lastUser] : []));
  const tools = (forcedToolCall(body, fake.reply_.json) ?? fake.reply_.toolCalls ?? []).map((call, index) => ({ type: 'tool_use' as const, id: `toolu_fake${index}_${++sequence}`, name: call.name, input: call.arguments }));
  // Anthropic counts cache reads and writes beside input_tokens, which then holds only the rest of the prompt.
  const cacheRead = fake.reply_.cachedTokens ?? 0;
  const cacheWrite = fake.reply_.cacheWriteTokens ?? 0;
  const inputTokens = Math.max(0, countWords(textOfMessages(history, body.system)) - cacheRead - cacheWrite);
  const outputTokens = countWords(tools.length > 0 ? tools.map((t) => JSON.stringify(t.input)).join(' ') : text);
  const id = `msg_fake${++sequence}`;
  const model = String(body.model);
  const stopReason = tools.length > 0 ? 'tool_use' : 'end_turn';
  const content = tools.length > 0 ? tools : [{ type: 'text' as const, text }];

  if (body.stream !== true) {
    return json(ctx, { id, type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage: fake.usageWith({ input_tokens: inputTokens, cache_creation_input_tokens: cacheWrite, cache_read_input_tokens: cacheRead, output_tokens: outputTokens, service_tier: 'standard' }) });
  }
  const sse = new FakeSse(ctx.res, fake.dropAfter, (value) => fake.serialize(value));
  const frames: { type: string; [key: string]: unknown }[] = [
    { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: fake.usageWith({ input_tokens: inputTokens, cache_creation_input_tokens: cacheWrite, cache_read_input_tokens: cacheRead, output_tokens: 1, service_tier: 'standard' }) } },
  ];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      frames.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      if (index === 0) frames.push({ type: 'ping' });
      for (const word of block.text.split(/(?<=\s)/)) frames.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: word } });
    } else {
      frames.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      frames.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } });
      frames.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    frames.push({ type: 'content_block_stop', index });
  });
  frames.push({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: fake.usageWith({ output_tokens: outputTokens }) });
  frames.push({ type: 'message_stop' });
  for (const frame of frames) if (!sse.send(frame, frame.type)) return;
  sse.end();
}

/** Anthropic honours a forced tool_choice: the answer is a call of that tool (of the last tool offered, for `any`). */
function forcedToolCall(body: { tool_choice?: { type?: string; name?: string }; tools?: { name: string }[] }, input: unknown): { name: string; arguments: unknown }[] | undefined {
  const choice = body.tool_choice;
  if (input === undefined || !choice) return undefined;
  const name = choice.type === 'tool' ? choice.name : choice.type === 'any' ? body.tools?.at(-1)?.name : undefined;
  return name ? [{ name, arguments: input }] : undefined;
}

function json(ctx: FakeContext, body: unknown): void {
  const text = ctx.fake.serialize(body);
  ctx.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  ctx.res.end(text);
}
