import { hasObjectRoot, structuredFormatOf, type AnthropicBlock, type AnthropicEvent, type ChatRequest, type Json, type MessagesRequest, type MessagesResponse } from '../../translate/index.js';

/**
 * Structured output on an Anthropic route, for chat (and, through chat, Responses) clients: the schema
 * becomes a tool whose input is the answer, the model is made to call it, and its call comes back as the
 * answer's text — so `response_format` is enforced, not dropped (contract §4.3 rule 1). The same device
 * the AI SDK uses (its recorded fixture `anthropic-json-tool` is such an answer).
 */

/** Names tried in order for the answer tool; the first the client's own tools do not use. */
const answerToolNames = ['json', 'json_answer', 'structured_answer'];

/** `response_format` values an Anthropic route can enforce: plain text, any JSON object, or a schema of an object (a tool's input is one). */
export function canForceAnswerTool(responseFormat: unknown): boolean {
  const type = (responseFormat as { type?: unknown } | null | undefined)?.type;
  if (type === undefined || type === 'text') return true;
  const format = structuredFormatOf(responseFormat);
  return format !== undefined && (format.type === 'json_object' || hasObjectRoot(format.schema));
}

/**
 * The answer tool's name for a chat request, or undefined when no answer tool applies: no structured
 * format, or a `tool_choice` that already forces a call of the client's own tools (that turn has no
 * content to shape, as on OpenAI).
 */
export function answerToolName(chat: ChatRequest): string | undefined {
  if (structuredFormatOf(chat.response_format) === undefined) return undefined;
  const choice = chat.tool_choice;
  if (choice === 'required' || (choice !== null && typeof choice === 'object')) return undefined;
  const taken = new Set(((chat.tools as { function?: { name?: string } }[] | undefined) ?? []).map((tool) => tool.function?.name));
  return answerToolNames.find((name) => !taken.has(name));
}

/**
 * Adds the answer tool to a translated request: forced when the model has no other tool it may call;
 * with the client's own tools available, the model must call one of them or the answer tool (`any`).
 *
 * @example
 * withAnswerTool(chatToMessagesRequest(chat, 'claude-sonnet-4-5', 4096), chat)
 */
export function withAnswerTool(request: MessagesRequest, chat: ChatRequest): MessagesRequest {
  const name = answerToolName(chat);
  const format = structuredFormatOf(chat.response_format);
  if (!name || !format) return request;
  const schema = format.type === 'json_schema' ? format.schema : { type: 'object' };
  const described = format.type === 'json_schema' ? ` ("${format.name}")` : '';
  const tool: Json = { name, description: `Give your whole answer${described} as this tool's input.`, input_schema: schema };
  const clientTools = Array.isArray(request.tools) ? (request.tools as Json[]) : [];
  const othersCallable = clientTools.length > 0 && chat.tool_choice !== 'none';
  request.tools = [...clientTools, tool];
  const parallel = (request.tool_choice as { disable_parallel_tool_use?: boolean } | undefined)?.disable_parallel_tool_use;
  request.tool_choice = othersCallable ? { type: 'any', ...(parallel ? { disable_parallel_tool_use: true } : {}) } : { type: 'tool', name, disable_parallel_tool_use: true };
  return request;
}

/**
 * An Anthropic answer with the answer tool's call turned into its text: the JSON of its input, the only
 * text of the answer (words the model wrote around it would make it unparseable), and `end_turn` when no
 * other tool was called.
 */
export function unwrapAnswer(message: MessagesResponse, name: string): MessagesResponse {
  const answer = message.content.find((block) => isAnswerBlock(block, name)) as { input: unknown } | undefined;
  if (!answer) return message;
  const others = message.content.filter((block) => block.type === 'tool_use' && !isAnswerBlock(block, name));
  const content: AnthropicBlock[] = [{ type: 'text', text: JSON.stringify(answer.input ?? {}) }, ...others];
  return { ...message, content, stop_reason: others.length === 0 && message.stop_reason === 'tool_use' ? 'end_turn' : message.stop_reason };
}

function isAnswerBlock(block: AnthropicBlock, name: string): boolean {
  return block.type === 'tool_use' && (block as { name?: unknown }).name === name;
}

/**
 * The same for a stream, event by event: the answer tool's block becomes a text block, its
 * `input_json_delta` fragments text deltas (their concatenation is the JSON), and `tool_use` becomes
 * `end_turn` when it was the only tool called.
 */
export class AnswerToolUnwrapper {
  #answerIndex: number | undefined;
  #otherTools = false;

  constructor(private readonly name: string) {}

  push(event: AnthropicEvent): AnthropicEvent {
    switch (event.type) {
      case 'content_block_start': {
        const block = event.content_block as AnthropicBlock;
        if (block.type !== 'tool_use') return event;
        if (!isAnswerBlock(block, this.name)) {
          this.#otherTools = true;
          return event;
        }
        this.#answerIndex = event.index as number;
        return { type: 'content_block_start', index: event.index, content_block: { type: 'text', text: '' } };
      }
      case 'content_block_delta': {
        const delta = event.delta as { type?: string; partial_json?: string };
        if (event.index !== this.#answerIndex || delta.type !== 'input_json_delta') return event;
        return { type: 'content_block_delta', index: event.index, delta: { type: 'text_delta', text: delta.partial_json ?? '' } };
      }
      case 'message_delta': {
        const delta = event.delta as { stop_reason?: string | null };
        if (delta.stop_reason !== 'tool_use' || this.#answerIndex === undefined || this.#otherTools) return event;
        return { ...event, delta: { ...delta, stop_reason: 'end_turn' } };
      }
      default:
        return event;
    }
  }
}
