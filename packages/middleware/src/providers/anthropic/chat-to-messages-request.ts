import { appendAll, parseImageDataUrl, parseToolArguments, textOf, textOfPart, type AnthropicBlock, type AnthropicMessage, type ChatContentPart, type ChatMessage, type ChatRequest, type Json, type MessagesRequest } from '../../translate/index.js';

/**
 * OpenAI chat request → Anthropic messages request, for a chat client on an Anthropic route.
 * System and developer messages become `system`; tool messages become `tool_result` blocks; consecutive
 * messages of one role merge, since Anthropic requires alternating turns. `tool_choice` is rewritten
 * silently (contract §4.3 rule 4).
 *
 * @example
 * chatToMessagesRequest({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] }, 'claude-sonnet-4-5', 4096)
 */
export function chatToMessagesRequest(chat: ChatRequest, upstreamModel: string, defaultMaxTokens: number): MessagesRequest {
  const system = chat.messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => textOf(m.content)).filter(Boolean);
  const turns = mergeTurns(chat.messages.filter((m) => m.role !== 'system' && m.role !== 'developer').map(toAnthropicMessage));
  const request: MessagesRequest = {
    model: upstreamModel,
    max_tokens: chat.max_completion_tokens ?? chat.max_tokens ?? defaultMaxTokens,
    messages: turns,
  };
  if (system.length > 0) request.system = system.join('\n\n');
  copyIfSet(chat, request, ['temperature', 'top_p', 'top_k', 'stream']);
  const stop = chat.stop;
  if (typeof stop === 'string') request.stop_sequences = [stop];
  else if (Array.isArray(stop)) request.stop_sequences = stop;
  if (typeof chat.user === 'string') request.metadata = { user_id: chat.user };
  if (Array.isArray(chat.tools)) request.tools = chat.tools.map(toAnthropicTool);
  const toolChoice = toAnthropicToolChoice(chat.tool_choice, chat.parallel_tool_calls);
  if (toolChoice) request.tool_choice = toolChoice;
  return request;
}

function toAnthropicMessage(message: ChatMessage): AnthropicMessage {
  if (message.role === 'tool' || message.role === 'function') {
    return { role: 'user', content: [{ type: 'tool_result', tool_use_id: message.tool_call_id ?? message.name ?? '', content: textOf(message.content) }] };
  }
  if (message.role === 'assistant') {
    const blocks: AnthropicBlock[] = [];
    const text = textOf(message.content);
    if (text) blocks.push({ type: 'text', text });
    for (const call of message.tool_calls ?? []) {
      blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseToolArguments(call.function.arguments) });
    }
    return { role: 'assistant', content: blocks };
  }
  if (typeof message.content === 'string' || message.content == null) return { role: 'user', content: message.content ?? '' };
  return { role: 'user', content: message.content.map(toAnthropicBlock) };
}

function toAnthropicBlock(part: ChatContentPart): AnthropicBlock {
  if (part.type === 'image_url') {
    const url = (part as { image_url: { url: string } }).image_url.url;
    if (url.startsWith('data:')) {
      const { mediaType, data } = parseImageDataUrl(url);
      return { type: 'image', source: { type: 'base64', media_type: mediaType, data } };
    }
    return { type: 'image', source: { type: 'url', url } };
  }
  if (part.type === 'text') return { type: 'text', text: textOfPart(part) };
  return part as AnthropicBlock;
}

function mergeTurns(messages: AnthropicMessage[]): AnthropicMessage[] {
  const merged: AnthropicMessage[] = [];
  // The last turn's blocks once it took in another message: its own array, appended to in place. A copy of the turn
  // per merged message was quadratic: 40,000 one-word user messages (1.2 MB) held the event loop for 21 s.
  let mergedBlocks: AnthropicBlock[] | undefined;
  for (const message of messages) {
    const last = merged.at(-1);
    if (last && last.role === message.role) {
      if (mergedBlocks === undefined) last.content = mergedBlocks = asBlocks(last.content).slice();
      appendAll(mergedBlocks, asBlocks(message.content));
    } else {
      merged.push({ ...message });
      mergedBlocks = undefined;
    }
  }
  return merged;
}

function asBlocks(content: string | AnthropicBlock[]): AnthropicBlock[] {
  return typeof content === 'string' ? (content ? [{ type: 'text', text: content }] : []) : content;
}

function toAnthropicTool(tool: unknown): Json {
  const fn = (tool as { function?: { name?: string; description?: string; parameters?: unknown } }).function ?? {};
  const result: Json = { name: fn.name, input_schema: fn.parameters ?? { type: 'object', properties: {} } };
  if (fn.description) result.description = fn.description;
  return result;
}

function toAnthropicToolChoice(choice: unknown, parallel: unknown): Json | undefined {
  const disableParallel = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'auto') return { type: 'auto', ...disableParallel };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...disableParallel };
  const name = (choice as { function?: { name?: string } } | undefined)?.function?.name;
  if (name) return { type: 'tool', name, ...disableParallel };
  return parallel === false ? { type: 'auto', ...disableParallel } : undefined;
}

function copyIfSet(from: Json, to: Json, names: string[]): void {
  for (const name of names) if (from[name] !== undefined && from[name] !== null) to[name] = from[name];
}
