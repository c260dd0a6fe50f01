import type { ChatStreamChunk, ChatWireUsage, MessagesStreamEvent, MessagesWireUsage, ResponsesStreamEvent, ResponsesWireUsage } from './family-shapes.js';

/**
 * One client protocol family's rules (contract §6.1), defined once for both sides: the server relays or
 * translates a stream to its normal end only when upstream ended it so, and @tollgate/client raises
 * StreamInterruptedError on any other end.
 */
export interface WireFamily<Event, Usage, Answer> {
  /** The text a reader sees in one stream event (the client's `partialText`). */
  textOf(event: Event): string;
  /** What the model generated in one event: its text and tool-call arguments (metered when usage is missing). */
  generatedTextOf(event: Event): string;
  /** Whether this event ends the stream normally: any other end is an interrupted stream. */
  isNormalEnd(event: Event): boolean;
  /** The usage this event carries, as sent (validated where it enters metering), or undefined. */
  usageOf(event: Event): Usage | undefined;
  /** What the model generated in a whole (non-streamed) answer: text and tool-call arguments or inputs. */
  answerTextOf(answer: Answer): string;
}

/** The event types that end a typed event stream normally. */
export const normalEndEvents = {
  /** `/v1/messages`: `message_stop` after the `message_delta` that carries `stop_reason`. */
  messages: ['message_stop'],
  /** `/v1/responses`: `response.incomplete` (max_output_tokens, content filter) is a finished response too; `response.failed` is not. */
  responses: ['response.completed', 'response.incomplete'],
} as const;

/** OpenAI chat: a chunk in which a choice carries a `finish_reason`. */
export function endsChatStream(chunk: ChatStreamChunk): boolean {
  const choices = chunk.choices;
  if (!choices) return false;
  for (const choice of choices) if (choice.finish_reason) return true;
  return false;
}

/** `/v1/messages`: the event that closes a finished message. */
export function endsMessagesStream(event: { type?: unknown }): boolean {
  return (normalEndEvents.messages as readonly unknown[]).includes(event.type);
}

/**
 * `/v1/responses`: the events that close a finished response.
 *
 * @example
 * endsResponsesStream({ type: 'response.incomplete' }) // true: cut by max_output_tokens, yet finished
 */
export function endsResponsesStream(event: { type?: unknown }): boolean {
  return (normalEndEvents.responses as readonly unknown[]).includes(event.type);
}

type ChatAnswer = { choices?: { message?: { content?: string | null; tool_calls?: { function: { arguments: string } }[] } }[] };
type MessagesAnswer = { content?: { text?: string; thinking?: string; input?: unknown }[] };
type ResponsesAnswer = { output?: { content?: { text?: string }[]; arguments?: string }[] };

const chat: WireFamily<ChatStreamChunk, ChatWireUsage, ChatAnswer> = {
  textOf: (chunk) => chunk.choices?.[0]?.delta?.content ?? '',
  generatedTextOf(chunk) {
    let text = '';
    for (const choice of chunk.choices ?? []) {
      if (typeof choice.delta?.content === 'string') text += choice.delta.content;
      // Reasoning that OpenAI-compatible servers stream beside the answer (DeepSeek, vLLM: `reasoning_content`;
      // Ollama, OpenRouter: `reasoning`) is output too, as Anthropic's thinking is.
      if (typeof choice.delta?.reasoning_content === 'string') text += choice.delta.reasoning_content;
      if (typeof choice.delta?.reasoning === 'string') text += choice.delta.reasoning;
      for (const call of choice.delta?.tool_calls ?? []) text += call.function?.arguments ?? '';
    }
    return text;
  },
  isNormalEnd: endsChatStream,
  usageOf: (chunk) => chunk.usage ?? undefined,
  answerTextOf(answer) {
    const message = answer.choices?.[0]?.message;
    return (message?.content ?? '') + (message?.tool_calls ?? []).map((call) => call.function.arguments).join('');
  },
};

const messages: WireFamily<MessagesStreamEvent, Partial<MessagesWireUsage>, MessagesAnswer> = {
  textOf: (event) => (event.type === 'content_block_delta' && event.delta?.type === 'text_delta' ? (event.delta.text ?? '') : ''),
  // Extended thinking is output too (Anthropic bills it as output tokens), so a cut stream bills what it relayed of it.
  generatedTextOf: (event) => (event.type === 'content_block_delta' ? (event.delta?.text ?? event.delta?.partial_json ?? event.delta?.thinking ?? '') : ''),
  isNormalEnd: endsMessagesStream,
  // message_start carries the first counts, message_delta revises them (its fields may be partial).
  usageOf: (event) => (event.type === 'message_start' ? (event.message?.usage ?? undefined) : event.type === 'message_delta' ? (event.usage ?? undefined) : undefined),
  answerTextOf: (answer) => (answer.content ?? []).map((block) => block.text ?? block.thinking ?? JSON.stringify(block.input ?? '')).join(''),
};

/** The Responses stream events whose `delta` is generated output: the answer, tool-call arguments, refusals and reasoning. */
const generatedResponsesDeltas: ReadonlySet<string> = new Set([
  'response.output_text.delta',
  'response.function_call_arguments.delta',
  'response.refusal.delta',
  'response.reasoning_summary_text.delta',
  'response.reasoning_text.delta',
]);

const responses: WireFamily<ResponsesStreamEvent, ResponsesWireUsage, ResponsesAnswer> = {
  textOf: (event) => (event.type === 'response.output_text.delta' ? String(event.delta ?? '') : ''),
  generatedTextOf: (event) => (typeof event.type === 'string' && generatedResponsesDeltas.has(event.type) ? String(event.delta ?? '') : ''),
  isNormalEnd: endsResponsesStream,
  usageOf: (event) => event.response?.usage ?? undefined,
  answerTextOf: (answer) => (answer.output ?? []).map((item) => (item.content ?? []).map((part) => part.text ?? '').join('') + (item.arguments ?? '')).join(''),
};

/**
 * The three families by the name of their client protocol.
 *
 * @example
 * wireFamilies.responses.isNormalEnd({ type: 'response.incomplete' }) // true
 */
export const wireFamilies = { chat, messages, responses } as const;

export type FamilyName = keyof typeof wireFamilies;

/**
 * What the model generated in a whole answer of a family (text and tool calls), for metering when the
 * provider reported no usage; '' for a protocol that is not a family (embeddings generate no text).
 *
 * @example
 * answerTextOf('messages', { content: [{ type: 'text', text: 'Hi' }] }) // 'Hi'
 */
export function answerTextOf(family: string, answer: unknown): string {
  if (!(family in wireFamilies)) return '';
  return (wireFamilies[family as FamilyName].answerTextOf as (answer: unknown) => string)(answer ?? {});
}
