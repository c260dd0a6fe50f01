import { validationError } from '../errors/index.js';
import { appendAll } from './append-all.js';
import { untranslatedContent } from './untranslated-content.js';
import { toImageDataUrl } from './image-data-url.js';
import { responseFormatFromMessages } from './structured-output.js';
import type { AnthropicBlock, ChatContentPart, ChatMessage, ChatRequest, Json, MessagesRequest } from './wire-types.js';

/**
 * Anthropic messages request → OpenAI chat request, for a messages client on an OpenAI-kind route (and,
 * through chat, on Gemini). `tool_result` blocks become tool messages; `tool_use` blocks tool calls.
 * Streams always ask for usage, which metering needs; the client never sees the extra chunk.
 *
 * @example
 * messagesToChatRequest({ model: 'gpt', max_tokens: 256, messages: [{ role: 'user', content: 'hi' }] }, 'gpt-4o')
 */
export function messagesToChatRequest(request: MessagesRequest, upstreamModel: string): ChatRequest {
  const messages: ChatMessage[] = [];
  const system = typeof request.system === 'string' ? request.system : (request.system ?? []).map((block) => block.text).join('\n\n');
  if (system) messages.push({ role: 'system', content: system });
  // `?? []`: a stream decoder may be built from a body that only asks for the stream's options.
  (request.messages ?? []).forEach((message, index) => appendAll(messages, toChatMessages(message.role, message.content, index)));

  const chat: ChatRequest = { model: upstreamModel, messages, max_tokens: request.max_tokens };
  for (const name of ['temperature', 'top_p', 'top_k', 'stream']) if (request[name] !== undefined) chat[name] = request[name];
  if (Array.isArray(request.stop_sequences)) chat.stop = request.stop_sequences;
  const userId = (request.metadata as { user_id?: unknown } | undefined)?.user_id;
  if (typeof userId === 'string') chat.user = userId;
  if (Array.isArray(request.tools)) chat.tools = request.tools.map(toChatTool);
  const toolChoice = toChatToolChoice(request.tool_choice as Json | undefined);
  if (toolChoice !== undefined) chat.tool_choice = toolChoice;
  if ((request.tool_choice as Json | undefined)?.disable_parallel_tool_use === true) chat.parallel_tool_calls = false;
  // Anthropic's structured output becomes chat's, which OpenAI enforces natively and Gemini as responseJsonSchema.
  const responseFormat = responseFormatFromMessages(request);
  if (responseFormat) chat.response_format = responseFormat;
  if (chat.stream) chat.stream_options = { include_usage: true };
  return chat;
}

function toChatMessages(role: 'user' | 'assistant', content: string | AnthropicBlock[], index: number): ChatMessage[] {
  if (typeof content === 'string') return [{ role, content }];
  content.forEach((block, blockIndex) => checkBlock(block, ['body', 'messages', index, 'content', blockIndex]));
  if (role === 'user') content.forEach((block, blockIndex) => checkTranslatable(block, `messages.${index}.content.${blockIndex}`));
  if (role === 'assistant') {
    const text = content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('');
    const toolCalls = content
      .filter((b): b is { type: 'tool_use'; id: string; name: string; input: unknown } => b.type === 'tool_use')
      .map((b) => ({ id: b.id, type: 'function' as const, function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }));
    const message: ChatMessage = { role: 'assistant', content: text || null };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    return [message];
  }
  // Tool results must directly follow the assistant's tool calls in OpenAI's format, so they go first.
  const results: ChatMessage[] = content
    .filter((b): b is { type: 'tool_result'; tool_use_id: string; content?: string | AnthropicBlock[] } => b.type === 'tool_result')
    .map((b) => ({ role: 'tool', tool_call_id: b.tool_use_id, content: blockText(b.content) }));
  const parts = content.filter((b) => b.type !== 'tool_result').map(toChatPart).filter((p): p is ChatContentPart => p !== undefined);
  return parts.length > 0 ? [...results, { role: 'user', content: parts }] : results;
}

/**
 * The fields the translation reads, checked before it reads them (the schema's blocks are loose): an image's
 * `source` must be an object, a tool_result's `content` a string or an array of blocks. Anything else is the
 * client's error (422), never a crash (500).
 */
function checkBlock(block: AnthropicBlock, loc: (string | number)[]): void {
  if (block.type === 'image') {
    const source = (block as { source?: unknown }).source;
    if (typeof source !== 'object' || source === null || Array.isArray(source)) throw validationError([...loc, 'source'], 'Invalid input: an image block needs a source object', source ?? null, 'model_type');
  }
  if (block.type === 'tool_result') {
    const content = (block as { content?: unknown }).content;
    const isBlocks = Array.isArray(content) && content.every((b) => typeof b === 'object' && b !== null && !Array.isArray(b));
    if (content !== undefined && typeof content !== 'string' && !isBlocks) throw validationError([...loc, 'content'], 'Invalid input: a tool_result content must be a string or an array of content blocks', content, 'union_type');
  }
}

/** What a user turn may hold on a chat route: what toChatPart and the tool results translate. */
const USER_BLOCKS_CHAT_TAKES = new Set(['text', 'image', 'tool_result']);

/** A user's block the translation has no chat form for is refused, never left out (untranslatedContent). */
function checkTranslatable(block: AnthropicBlock, at: string): void {
  if (USER_BLOCKS_CHAT_TAKES.has(block.type) || isTextDocument(block)) return;
  throw untranslatedContent(block.type, at, 'text, images, tool results and plain-text documents');
}

/** A plain-text document (`source: {type: "text", data}`): text to a chat model. */
function isTextDocument(block: AnthropicBlock): boolean {
  const source = (block as { source?: { type?: unknown; data?: unknown } }).source;
  return block.type === 'document' && typeof source === 'object' && source !== null && source.type === 'text' && typeof source.data === 'string';
}

function toChatPart(block: AnthropicBlock): ChatContentPart | undefined {
  if (block.type === 'text') return { type: 'text', text: (block as { text: string }).text };
  if (isTextDocument(block)) return { type: 'text', text: (block as { source: { data: string } }).source.data };
  if (block.type === 'image') {
    const source = (block as { source: { type: string; media_type?: string; data?: string; url?: string } }).source;
    const url = source.type === 'base64' ? toImageDataUrl(source.media_type ?? 'image/png', source.data ?? '') : (source.url ?? '');
    return { type: 'image_url', image_url: { url } };
  }
  return undefined;
}

function blockText(content: string | AnthropicBlock[] | undefined): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((b) => (b.type === 'text' ? (b as { text: string }).text : '')).join('');
}

function toChatTool(tool: unknown): Json {
  const t = tool as { name: string; description?: string; input_schema?: unknown };
  const fn: Json = { name: t.name, parameters: t.input_schema ?? { type: 'object', properties: {} } };
  if (t.description) fn.description = t.description;
  return { type: 'function', function: fn };
}

function toChatToolChoice(choice: Json | undefined): unknown {
  switch (choice?.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'function', function: { name: choice.name } };
    default:
      return undefined;
  }
}
