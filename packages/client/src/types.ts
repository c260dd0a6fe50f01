/** SQL results (contract §2.2); `affected_rows` is Tollgate's addition for writes. */
export type SqlResult =
  | { type: 'table'; column_names: string[]; column_types?: SqlColumnType[]; data: unknown[][]; context: { db: string } }
  | { type: 'ok'; context: { db?: string }; affected_rows?: number };

/** Every statement's result of one request, in order (`results: "all"`). */
export interface SqlResults {
  type: 'results';
  results: SqlResult[];
  context: { db: string };
}

/** A result column's declared type and the storage class of its values (Tollgate's `column_types`). */
export interface SqlColumnType {
  declared: string | null;
  storage: 'integer' | 'real' | 'text' | 'blob' | 'mixed' | null;
  storage_by_row?: ('integer' | 'real' | 'text' | 'blob' | null)[];
}

export type SqlValue = string | number | boolean | null;

export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content: string | null | { type: string; [key: string]: unknown }[];
  [key: string]: unknown;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  temperature?: number;
  [key: string]: unknown;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  model: string;
  choices: { index: number; message: { role: 'assistant'; content: string | null; tool_calls?: unknown[] }; finish_reason: string | null }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export interface ChatChunk {
  id: string;
  object: 'chat.completion.chunk';
  model: string;
  choices: { index: number; delta: { role?: string; content?: string | null; tool_calls?: unknown[] }; finish_reason: string | null }[];
  usage?: ChatCompletion['usage'] | null;
}

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: { role: 'user' | 'assistant'; content: string | { type: string; [key: string]: unknown }[] }[];
  system?: string;
  [key: string]: unknown;
}

export interface Message {
  id: string;
  type: 'message';
  model: string;
  content: { type: string; text?: string; [key: string]: unknown }[];
  stop_reason: string | null;
  usage: { input_tokens: number; output_tokens: number };
}

export interface MessagesEvent {
  type: string;
  [key: string]: unknown;
}

export interface ResponsesEvent {
  type: string;
  [key: string]: unknown;
}

export interface EmbeddingsResponse {
  object: 'list';
  data: { object: 'embedding'; index: number; embedding: number[] | string }[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}
