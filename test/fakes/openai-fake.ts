import { FakeServer, FakeSse, countWords, sendPadded, echoReply, textOfMessages, type FakeContext } from './fake-server.js';

export const FAKE_OPENAI_KEY = 'sk-fake-openai';

const errorTypes: Record<number, string> = { 400: 'invalid_request_error', 401: 'invalid_request_error', 404: 'invalid_request_error', 429: 'requests', 500: 'server_error', 503: 'server_error' };

/** OpenAI's error body: `{error: {message, type, param, code}}`. */
function openaiError(status: number, message: string) {
  return { error: { message, type: errorTypes[status] ?? 'server_error', param: null, code: status === 401 ? 'invalid_api_key' : status === 429 ? 'rate_limit_exceeded' : null } };
}

let sequence = 0;

/**
 * A fake OpenAI: chat completions (JSON and SSE, usage chunk only with `stream_options.include_usage`,
 * tool calls), responses (JSON and events), embeddings and the models list, with OpenAI's error bodies.
 * Base URL ends in `/v1`.
 *
 * @example
 * const openai = await startFakeOpenAI();             // startFakeOpenAI({ http2: true }): h2c
 * openai.failNext({ status: 429, times: 2 });
 */
export async function startFakeOpenAI(options: { apiKey?: string; http2?: boolean } = {}): Promise<FakeServer> {
  const apiKey = options.apiKey ?? FAKE_OPENAI_KEY;
  const fake = new FakeServer((ctx) => route(ctx, apiKey), '/v1', openaiError, 'x-request-id');
  return fake.start({ http2: options.http2 });
}

function route(ctx: FakeContext, apiKey: string): void | Promise<void> {
  const { req, res, url, fake } = ctx;
  if (req.headers.authorization !== `Bearer ${apiKey}`) return fake.sendError(res, 401, 'Incorrect API key provided.');
  if (req.method === 'POST' && url.pathname === '/v1/chat/completions') return chat(ctx);
  if (req.method === 'POST' && url.pathname === '/v1/embeddings') return embeddings(ctx);
  if (req.method === 'POST' && url.pathname === '/v1/responses') return responses(ctx);
  if (req.method === 'GET' && url.pathname === '/v1/models') return json(ctx, { object: 'list', data: [{ id: 'gpt-4o', object: 'model', created: 1, owned_by: 'openai' }] });
  fake.sendError(res, 404, `Unknown request URL: ${req.method} ${url.pathname}`);
}

function chat(ctx: FakeContext): void | Promise<void> {
  const { body, fake } = ctx;
  const messages = (body?.messages ?? []) as { role: string; content: unknown }[];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const structured = body?.response_format?.type === 'json_schema' || body?.response_format?.type === 'json_object';
  const whole = structured && fake.reply_.json !== undefined ? JSON.stringify(fake.reply_.json) : (fake.reply_.text ?? echoReply(textOfMessages(lastUser ? [lastUser] : [])));
  // As OpenAI does: generation stops at the output budget, with finish_reason "length" (one word = one token here).
  const budget = fake.reply_.ignoresBudget ? undefined : typeof body?.max_completion_tokens === 'number' ? body.max_completion_tokens : typeof body?.max_tokens === 'number' ? body.max_tokens : undefined;
  const truncated = budget !== undefined && countWords(whole) > budget;
  const text = truncated ? whole.split(/\s+/).filter(Boolean).slice(0, budget).join(' ') : whole;
  const toolCalls = (fake.reply_.toolCalls ?? []).map((call, index) => ({ id: `call_${index}_${++sequence}`, type: 'function' as const, function: { name: call.name, arguments: JSON.stringify(call.arguments) } }));
  const promptTokens = countWords(textOfMessages(messages));
  const completionTokens = countWords(toolCalls.length > 0 ? toolCalls.map((c) => c.function.arguments).join(' ') : text);
  const usage = fake.usageWith({ prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens, prompt_tokens_details: { cached_tokens: fake.reply_.cachedTokens ?? 0, audio_tokens: 0 } });
  const id = `chatcmpl-fake${++sequence}`;
  const created = Math.floor(Date.now() / 1000);
  const finishReason = toolCalls.length > 0 ? 'tool_calls' : truncated ? 'length' : 'stop';
  const model = String(body?.model ?? 'gpt-4o');

  if (body?.stream !== true && fake.reply_.answerBytes !== undefined) {
    const head = `{"id":"${id}","object":"chat.completion","created":${created},"model":"${model}","choices":[{"index":0,"message":{"role":"assistant","content":"`;
    const tail = `","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":${JSON.stringify(usage)},"system_fingerprint":"fp_fake"}`;
    return sendPadded(ctx.res, head, fake.reply_.answerBytes, tail);
  }
  if (body?.stream !== true) {
    return json(ctx, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: toolCalls.length > 0 ? null : text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}), refusal: null }, logprobs: null, finish_reason: finishReason }],
      usage,
      system_fingerprint: 'fp_fake',
    });
  }
  const sse = new FakeSse(ctx.res, fake.dropAfter, (value) => fake.serialize(value));
  const chunk = (delta: object, finish: string | null) => ({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(body.stream_options?.include_usage ? { usage: null } : {}) });
  const frames: unknown[] = [chunk({ role: 'assistant', content: '', refusal: null }, null)];
  if (fake.reply_.endless) {
    sse.send(frames[0]);
    const content = chunk({ content: text }, null);
    return sse.flood(fake, () => content);
  }
  if (toolCalls.length > 0) {
    toolCalls.forEach((call, index) => {
      frames.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }, null));
      frames.push(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }, null));
    });
  } else {
    for (const word of text.split(/(?<=\s)/)) frames.push(chunk({ content: word }, null));
  }
  frames.push(chunk({}, finishReason));
  if (body.stream_options?.include_usage) frames.push({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices: [], usage });
  frames.push('[DONE]');
  for (const frame of frames) if (!sse.send(frame)) return;
  sse.end();
}

/** The Responses API: a response object, or its event sequence as recorded in openai-responses-tool-calls. */
function responses(ctx: FakeContext): void {
  const { body, fake } = ctx;
  const input = typeof body?.input === 'string' ? [{ role: 'user', content: body.input }] : ((body?.input ?? []) as { role?: string; content?: unknown }[]);
  const lastUser = [...input].reverse().find((item) => item.role === 'user');
  const text = fake.reply_.text ?? echoReply(textOfMessages(lastUser ? [lastUser] : []));
  const inputTokens = countWords(textOfMessages(input, body?.instructions));
  const usage = { input_tokens: inputTokens, input_tokens_details: { cached_tokens: fake.reply_.cachedTokens ?? 0 }, output_tokens: countWords(text), output_tokens_details: { reasoning_tokens: 0 }, total_tokens: inputTokens + countWords(text) };
  const id = `resp_fake${++sequence}`;
  const itemId = `msg_fake${sequence}`;
  const model = String(body?.model ?? 'gpt-4o');
  const part = { type: 'output_text', text, annotations: [] };
  const item = { id: itemId, type: 'message', status: 'completed', role: 'assistant', content: [part] };
  const response = (status: string, output: unknown[], withUsage: boolean) => ({ id, object: 'response', created_at: Math.floor(Date.now() / 1000), status, model, output, ...(withUsage ? { usage } : { usage: null }), error: null, incomplete_details: null });
  if (body?.stream !== true) return json(ctx, { ...response('completed', [item], true), output_text: text });
  const sse = new FakeSse(ctx.res, fake.dropAfter);
  let n = 0;
  const frames: { type: string; [key: string]: unknown }[] = [
    { type: 'response.created', response: response('in_progress', [], false) },
    { type: 'response.in_progress', response: response('in_progress', [], false) },
    { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress', content: [] } },
    { type: 'response.content_part.added', item_id: itemId, output_index: 0, content_index: 0, part: { ...part, text: '' } },
    ...text.split(/(?<=\s)/).map((delta) => ({ type: 'response.output_text.delta', item_id: itemId, output_index: 0, content_index: 0, delta, logprobs: [] })),
    { type: 'response.output_text.done', item_id: itemId, output_index: 0, content_index: 0, text, logprobs: [] },
    { type: 'response.content_part.done', item_id: itemId, output_index: 0, content_index: 0, part },
    { type: 'response.output_item.done', output_index: 0, item },
    { type: 'response.completed', response: response('completed', [item], true) },
  ];
  for (const frame of frames) if (!sse.send({ ...frame, sequence_number: n++ }, frame.type)) return;
  sse.end();
}

function embeddings(ctx: FakeContext): void {
  const { body } = ctx;
  const inputs: string[] = Array.isArray(body?.input) ? body.input.map(String) : [String(body?.input ?? '')];
  const vector = (text: string) => Array.from({ length: 8 }, (_, i) => Number((((text.length + 1) * (i + 1)) % 97) / 97).toFixed(6)).map(Number);
  const tokens = inputs.reduce((sum, text) => sum + countWords(text), 0);
  const asBase64 = body?.encoding_format === 'base64';
  json(ctx, {
    object: 'list',
    data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: asBase64 ? Buffer.from(new Float32Array(vector(text)).buffer).toString('base64') : vector(text) })),
    model: String(body?.model ?? 'text-embedding-3-small'),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

function json(ctx: FakeContext, body: unknown): void {
  const text = ctx.fake.serialize(body);
  ctx.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  ctx.res.end(text);
}
