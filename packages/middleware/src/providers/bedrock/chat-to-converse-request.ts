import { ServiceError } from '../../errors/index.js';
import { appendAll, parseEmbeddedJson, parseImageDataUrl, textOf, textOfPart, untranslatedContent, type ChatContentPart, type ChatMessage, type ChatRequest } from '../../translate/index.js';
import type { ConverseContentBlock, ConverseMessage, ConverseRequest, ConverseToolChoice, ConverseToolSpec } from './converse-wire.js';

type ChatTool = { type: string; function?: { name: string; description?: string; parameters?: unknown } };

/** A tool without parameters still needs an input schema on Bedrock. */
const noParameters = { type: 'object', properties: {} };

/**
 * OpenAI chat request → Bedrock Converse body: system/developer messages become `system`, tool calls
 * `toolUse` blocks, tool results `toolResult` blocks in a user turn (consecutive turns of one role
 * merged: Converse wants them alternating), sampling fields `inferenceConfig`, tools `toolConfig`.
 * The model is in the path, not the body (see bedrockPath).
 *
 * @example
 * chatToConverseRequest({ model: 'claude', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 64 })
 * // → { messages: [{ role: 'user', content: [{ text: 'Hi' }] }], inferenceConfig: { maxTokens: 64 } }
 */
export function chatToConverseRequest(chat: ChatRequest, defaultMaxTokens?: number): ConverseRequest {
  const system = chat.messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => textOf(m.content)).filter(Boolean);
  const messages: ConverseMessage[] = [];
  for (const message of chat.messages) {
    if (message.role === 'system' || message.role === 'developer') continue;
    const turn = toTurn(message);
    const last = messages.at(-1);
    if (last && last.role === turn.role) appendAll(last.content, turn.content);
    else messages.push(turn);
  }
  const request: ConverseRequest = { messages };
  if (system.length > 0) request.system = system.map((text) => ({ text }));
  const inferenceConfig = inferenceConfigOf(chat, defaultMaxTokens);
  if (inferenceConfig) request.inferenceConfig = inferenceConfig;
  const toolConfig = toolConfigOf(chat);
  if (toolConfig) request.toolConfig = toolConfig;
  return request;
}

function toTurn(message: ChatMessage): ConverseMessage {
  if (message.role === 'tool' || message.role === 'function') {
    const toolUseId = message.tool_call_id ?? message.name ?? 'tool';
    return { role: 'user', content: [{ toolResult: { toolUseId, content: [{ text: textOf(message.content) }] } }] };
  }
  const content: ConverseContentBlock[] = [];
  if (typeof message.content === 'string') {
    // Converse rejects a blank text block; an assistant turn of only tool calls has none.
    if (message.content) content.push({ text: message.content });
  } else {
    for (const part of message.content ?? []) content.push(toBlock(part));
  }
  for (const call of message.tool_calls ?? []) content.push({ toolUse: { toolUseId: call.id, name: call.function.name, input: parseArguments(call.function.arguments) } });
  if (content.length === 0) content.push({ text: ' ' });
  return { role: message.role === 'assistant' ? 'assistant' : 'user', content };
}

const imageFormats = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' } as const;

function toBlock(part: ChatContentPart): ConverseContentBlock {
  if (part.type === 'image_url') {
    const url = (part as { image_url: { url: string } }).image_url.url;
    // Converse takes image bytes (or S3 objects), never a URL to fetch.
    if (!url.startsWith('data:')) throw new ServiceError('invalid_request', 'Bedrock models take images as base64 data URLs only, not as links', { param: 'messages' });
    const { mediaType, data } = parseImageDataUrl(url);
    return { image: { format: imageFormats[mediaType as keyof typeof imageFormats], source: { bytes: data } } };
  }
  if (part.type === 'text') return { text: textOfPart(part) };
  // An assistant's refusal repeats an earlier answer (blank, as before); anything else would be left out of the prompt.
  if (part.type === 'refusal') return { text: '' };
  throw untranslatedContent(part.type, 'messages', 'text and images');
}

function parseArguments(text: string): unknown {
  const parsed = parseEmbeddedJson(text || '{}');
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
  throw new ServiceError('invalid_request', 'tool_calls[].function.arguments must be a JSON object', { param: 'messages' });
}

/**
 * `defaultMaxTokens`: the output budget when the client set none, which its reservation holds (README "Reservations"):
 * sent, so the model's own default cannot take a wallet past its overdraft.
 */
function inferenceConfigOf(chat: ChatRequest, defaultMaxTokens: number | undefined): ConverseRequest['inferenceConfig'] {
  const config: NonNullable<ConverseRequest['inferenceConfig']> = {};
  const maxTokens = chat.max_completion_tokens ?? chat.max_tokens ?? defaultMaxTokens;
  if (typeof maxTokens === 'number') config.maxTokens = maxTokens;
  if (typeof chat.temperature === 'number') config.temperature = chat.temperature;
  if (typeof chat.top_p === 'number') config.topP = chat.top_p;
  const stop = typeof chat.stop === 'string' ? [chat.stop] : Array.isArray(chat.stop) ? (chat.stop as string[]) : undefined;
  if (stop && stop.length > 0) config.stopSequences = stop;
  return Object.keys(config).length > 0 ? config : undefined;
}

/**
 * Tools as `toolSpec`s and `tool_choice` as Converse's choice: auto → `auto`, required → `any`, a named
 * function → `tool`. Converse has no "none": the tools are left out instead (a rewritten tool_choice is
 * not reported, contract §4.3 rule 4), unless earlier turns used them, which Converse then requires.
 */
function toolConfigOf(chat: ChatRequest): ConverseRequest['toolConfig'] {
  const tools: ConverseToolSpec[] = ((chat.tools as ChatTool[] | undefined) ?? [])
    .filter((tool) => tool.type === 'function' && tool.function)
    .map(({ function: fn }) => ({ toolSpec: { name: fn!.name, ...(fn!.description ? { description: fn!.description } : {}), inputSchema: { json: fn!.parameters ?? noParameters } } }));
  if (tools.length === 0) return undefined;
  const choice = chat.tool_choice;
  if (choice === 'none') return chat.messages.some((m) => m.tool_calls?.length || m.role === 'tool') ? { tools } : undefined;
  const toolChoice = toolChoiceOf(choice);
  return toolChoice ? { tools, toolChoice } : { tools };
}

function toolChoiceOf(choice: unknown): ConverseToolChoice | undefined {
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  const name = (choice as { function?: { name?: string } } | undefined)?.function?.name;
  return name ? { tool: { name } } : undefined;
}
