import { ServiceError } from '../../errors/index.js';
import { appendAll, parseEmbeddedJson, parseImageDataUrl, textOf, untranslatedContent, type ChatContentPart, type ChatMessage, type ChatRequest } from '../../translate/index.js';
import type { GeminiContent, GeminiPart, GeminiRequest } from './gemini-wire.js';
import { thoughtSignatureOf } from './gemini-to-chat-response.js';

/** JSON-Schema keywords Gemini's OpenAPI-subset `parameters` rejects. */
const unsupportedSchemaKeys = new Set(['$schema', 'additionalProperties', 'strict', '$id', '$defs', 'definitions']);

/**
 * OpenAI chat request → Gemini `generateContent` body: system/developer messages become
 * `systemInstruction`, assistant turns `model`, tool calls `functionCall` and tool results
 * `functionResponse` (named after the call they answer), sampling fields `generationConfig`.
 *
 * @example
 * chatToGeminiRequest({ model: 'gemini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 64 })
 * // → { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], generationConfig: { maxOutputTokens: 64 } }
 */
export function chatToGeminiRequest(chat: ChatRequest, defaultMaxTokens?: number): GeminiRequest {
  const system = chat.messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => textOf(m.content)).filter(Boolean);
  const toolNames = new Map<string, string>();
  const contents: GeminiContent[] = [];
  for (const message of chat.messages) {
    if (message.role === 'system' || message.role === 'developer') continue;
    for (const call of message.tool_calls ?? []) toolNames.set(call.id, call.function.name);
    const content = toContent(message, toolNames);
    const last = contents.at(-1);
    // Gemini wants alternating turns; consecutive tool results (one user turn) are merged.
    if (last && last.role === content.role) appendAll(last.parts, content.parts);
    else contents.push(content);
  }
  const request: GeminiRequest = { contents, generationConfig: generationConfig(chat, defaultMaxTokens) };
  if (system.length > 0) request.systemInstruction = { parts: [{ text: system.join('\n\n') }] };
  const tools = (chat.tools as { type: string; function?: { name: string; description?: string; parameters?: unknown } }[] | undefined) ?? [];
  const declarations = tools.filter((t) => t.type === 'function' && t.function).map((t) => ({
    name: t.function!.name,
    ...(t.function!.description ? { description: t.function!.description } : {}),
    ...(t.function!.parameters ? { parameters: cleanSchema(t.function!.parameters) } : {}),
  }));
  if (declarations.length > 0) request.tools = [{ functionDeclarations: declarations }];
  const toolConfig = toToolConfig(chat.tool_choice);
  if (toolConfig && declarations.length > 0) request.toolConfig = toolConfig;
  return request;
}

function toContent(message: ChatMessage, toolNames: Map<string, string>): GeminiContent {
  if (message.role === 'tool' || message.role === 'function') {
    const name = (message.tool_call_id && toolNames.get(message.tool_call_id)) || message.name || 'tool';
    return { role: 'user', parts: [{ functionResponse: { name, response: toResponseObject(textOf(message.content)) } }] };
  }
  const parts: GeminiPart[] = [];
  if (typeof message.content === 'string') {
    if (message.content) parts.push({ text: message.content });
  } else {
    for (const part of message.content ?? []) parts.push(...toParts(part));
  }
  for (const call of message.tool_calls ?? []) {
    const thoughtSignature = thoughtSignatureOf(call.id);
    parts.push({ functionCall: { name: call.function.name, args: parseArgs(call.function.arguments) }, ...(thoughtSignature ? { thoughtSignature } : {}) });
  }
  if (parts.length === 0) parts.push({ text: '' });
  return { role: message.role === 'assistant' ? 'model' : 'user', parts };
}

function toParts(part: ChatContentPart): GeminiPart[] {
  if (part.type === 'text') return [{ text: (part as { text: string }).text }];
  if (part.type === 'image_url') {
    const url = (part as { image_url: { url: string } }).image_url.url;
    if (url.startsWith('data:')) {
      const { mediaType, data } = parseImageDataUrl(url);
      return [{ inlineData: { mimeType: mediaType, data } }];
    }
    return [{ fileData: { fileUri: url } }];
  }
  // An assistant's refusal repeats an earlier answer; anything else a client sent would be left out of the prompt.
  if (part.type === 'refusal') return [];
  throw untranslatedContent(part.type, 'messages', 'text and images');
}

/** Gemini's functionResponse.response must be an object; a JSON object result is passed as is. */
function toResponseObject(text: string): Record<string, unknown> {
  const parsed = parseEmbeddedJson(text);
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  return { result: text };
}

function parseArgs(text: string): Record<string, unknown> {
  const parsed = parseEmbeddedJson(text || '{}');
  if (parsed === undefined) throw new ServiceError('invalid_request', 'tool_calls[].function.arguments must be a JSON object', { param: 'messages' });
  return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
}

/**
 * `defaultMaxTokens`: the output budget when the client set none, which its reservation holds (README "Reservations"):
 * sent, so Gemini's own default (the model's maximum) cannot take a wallet past its overdraft.
 */
function generationConfig(chat: ChatRequest, defaultMaxTokens: number | undefined): Record<string, unknown> {
  const stop = typeof chat.stop === 'string' ? [chat.stop] : (chat.stop as string[] | null | undefined);
  const config: Record<string, unknown> = {
    temperature: chat.temperature,
    topP: chat.top_p,
    topK: chat.top_k,
    maxOutputTokens: chat.max_completion_tokens ?? chat.max_tokens ?? defaultMaxTokens,
    stopSequences: stop ?? undefined,
    candidateCount: chat.n,
    presencePenalty: chat.presence_penalty,
    frequencyPenalty: chat.frequency_penalty,
    seed: chat.seed,
  };
  const format = chat.response_format as { type?: string; json_schema?: { schema?: unknown } } | undefined;
  if (format?.type === 'json_object' || format?.type === 'json_schema') config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema' && format.json_schema?.schema) config.responseJsonSchema = format.json_schema.schema;
  return Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined && value !== null));
}

function toToolConfig(choice: unknown): GeminiRequest['toolConfig'] {
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  const name = (choice as { function?: { name?: string } } | undefined)?.function?.name;
  if (name) return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [name] } };
  return undefined;
}

function cleanSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(cleanSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(Object.entries(schema).filter(([key]) => !unsupportedSchemaKeys.has(key)).map(([key, value]) => [key, key === 'properties' ? mapValues(value, cleanSchema) : cleanSchema(value)]));
}

function mapValues(object: unknown, fn: (value: unknown) => unknown): unknown {
  if (object === null || typeof object !== 'object') return object;
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, fn(value)]));
}
