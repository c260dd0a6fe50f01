import type { ChatCompletionsBody, MessagesBody } from '../wire/index.js';

/**
 * The slices of the OpenAI chat and Anthropic messages wire formats that translation reads and writes.
 * Request bodies are validated at the boundary by the schemas in wire/, and their types here are inferred
 * from those schemas (one definition); answers and stream events are written here.
 */
export type Json = Record<string, unknown>;

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A chat message as its schema checks it, its content parts as translation tells them apart. */
export type ChatMessage = Omit<Named<ChatCompletionsBody['messages'][number]>, 'content'> & { content?: string | ChatContentPart[] | null };

export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } }
  | { type: string; [key: string]: unknown };

/** The fields a schema names, without the index signature of a `looseObject` (which passes other fields on). */
type Named<Body> = { [K in keyof Body as string extends K ? never : number extends K ? never : K]: Body[K] };

/**
 * A request body as translation reads it (the type inferred from its wire/ schema) and builds it for another
 * family, where the tools it writes are plain JSON of that family's shape.
 */
type Translated<Body> = Omit<Named<Body>, 'tools'> & { tools?: Json[] } & Json;

export type ChatRequest = Translated<ChatCompletionsBody>;

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** OpenAI's breakdown: `cached_tokens` are part of `prompt_tokens` (also set by translations from other providers). */
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
}

export interface ChatCompletion extends Json {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: { index: number; message: { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[]; refusal?: string | null }; finish_reason: string | null; logprobs?: unknown }[];
  usage?: ChatUsage;
}

export interface ChatChunkDelta {
  role?: 'assistant';
  content?: string | null;
  /** OpenAI's refusal (structured outputs), streamed apart from the content. */
  refusal?: string | null;
  tool_calls?: { index: number; id?: string; type?: 'function'; function?: { name?: string; arguments?: string } }[];
}

export interface ChatChunk extends Json {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: ChatChunkDelta; finish_reason: string | null; logprobs?: unknown }[];
  usage?: ChatUsage | null;
}

export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string } }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content?: string | AnthropicBlock[]; is_error?: boolean }
  | { type: string; [key: string]: unknown };

export type AnthropicMessage = MessagesBody['messages'][number];

export type MessagesRequest = Translated<MessagesBody>;

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

export interface MessagesResponse extends Json {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicBlock[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: AnthropicUsage;
}

/** One Anthropic SSE event: its `type` doubles as the SSE event name. */
export interface AnthropicEvent extends Json {
  type: string;
}
