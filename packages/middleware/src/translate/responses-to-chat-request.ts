import { validationError } from '../errors/index.js';
import { untranslatedContent } from './untranslated-content.js';
import type { ChatContentPart, ChatMessage, ChatRequest } from './wire-types.js';
import type { ResponsesInputItem, ResponsesRequest } from './responses-wire.js';
import { responseFormatFromResponsesText } from './structured-output.js';

/**
 * OpenAI Responses request → chat request (the pivot), for routes that do not speak Responses:
 * `instructions` becomes a system message, message items messages, `function_call` items assistant
 * tool calls and `function_call_output` items tool messages; `max_output_tokens` becomes `max_tokens`.
 *
 * @example
 * responsesToChatRequest({ model: 'claude-sonnet', input: 'Hi', instructions: 'Be brief' })
 * // → { model: 'claude-sonnet', messages: [{ role: 'system', content: 'Be brief' }, { role: 'user', content: 'Hi' }] }
 */
export function responsesToChatRequest(request: ResponsesRequest): ChatRequest {
  const messages: ChatMessage[] = [];
  if (request.instructions) messages.push({ role: 'system', content: request.instructions });
  const items: ResponsesInputItem[] = typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input;
  for (const item of items) {
    if (item.type === 'function_call') {
      const call = item as { call_id: string; name: string; arguments: string };
      const toolCall = { id: call.call_id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } };
      const last = messages.at(-1);
      // Parallel calls of one turn arrive as consecutive items; chat keeps them in one assistant message.
      if (last?.role === 'assistant' && last.tool_calls) last.tool_calls.push(toolCall);
      else messages.push({ role: 'assistant', content: null, tool_calls: [toolCall] });
    } else if (item.type === 'function_call_output') {
      const result = item as { call_id: string; output: string | { text?: string }[] };
      const output = typeof result.output === 'string' ? result.output : result.output.map((part) => part.text ?? '').join('');
      messages.push({ role: 'tool', tool_call_id: result.call_id, content: output });
    } else if (item.type === undefined || item.type === 'message') {
      const message = item as { role: ChatMessage['role']; content: string | { type: string; text?: string; image_url?: string; detail?: string }[] };
      messages.push({ role: message.role, content: typeof message.content === 'string' ? message.content : message.content.flatMap(toChatPart) });
    }
  }
  const chat: ChatRequest = { model: request.model, messages };
  const copy = (from: string, to = from) => {
    const value = request[from];
    if (value !== undefined && value !== null) chat[to] = value;
  };
  copy('max_output_tokens', 'max_tokens');
  copy('temperature');
  copy('top_p');
  copy('parallel_tool_calls');
  copy('user');
  if (request.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  const tools = (request.tools as { type: string; name?: string; description?: string; parameters?: unknown; strict?: boolean }[] | undefined) ?? [];
  const functions = tools.filter((tool) => tool.type === 'function' && tool.name);
  if (functions.length > 0) {
    chat.tools = functions.map((tool) => ({ type: 'function', function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.parameters ?? { type: 'object', properties: {} } } }));
  }
  const choice = request.tool_choice as string | { type?: string; name?: string } | undefined;
  if (typeof choice === 'string') chat.tool_choice = choice;
  else if (choice?.type === 'function' && choice.name) chat.tool_choice = { type: 'function', function: { name: choice.name } };
  const responseFormat = responseFormatFromResponsesText(request.text);
  if (responseFormat) chat.response_format = responseFormat;
  return chat;
}

function toChatPart(part: { type: string; text?: string; image_url?: string; detail?: string }): ChatContentPart[] {
  if (part.type === 'input_text' || part.type === 'output_text' || part.type === 'text') return [{ type: 'text', text: part.text ?? '' }];
  // The codecs behind the pivot read the URL as a string: anything else was a 500 on an Anthropic route.
  if (part.type === 'input_image' && part.image_url !== undefined && typeof part.image_url !== 'string') {
    throw validationError(['body', 'input', 'content', 'image_url'], 'Invalid input: an input_image part needs image_url, a string', part.image_url, 'string_type');
  }
  if (part.type === 'input_image' && part.image_url) return [{ type: 'image_url', image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) } }];
  // A file or audio the client gave has no chat form here: refused, never left out (untranslatedContent). An earlier
  // answer's parts (a refusal) repeat nothing the model needs.
  if (typeof part.type === 'string' && part.type.startsWith('input_')) throw untranslatedContent(part.type, 'input', 'text and images');
  return [];
}
