/**
 * The slices of each family's stream events and answers the family table reads (contract §6.1). Loose on
 * purpose: the table reads what is there and never throws on what is not.
 */

export interface ChatWireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
}

export interface ChatStreamChunk {
  choices?: readonly { delta?: { content?: string | null; reasoning_content?: unknown; reasoning?: unknown; tool_calls?: readonly { function?: { arguments?: string } }[] | null } | null; finish_reason?: string | null }[] | null;
  usage?: ChatWireUsage | null;
}

export interface MessagesWireUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

export interface MessagesStreamEvent {
  type?: unknown;
  message?: { usage?: MessagesWireUsage | null } | null;
  delta?: { type?: string; text?: string; partial_json?: string; thinking?: string } | null;
  usage?: Partial<MessagesWireUsage> | null;
}

export interface ResponsesWireUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number | null } | null;
}

export interface ResponsesStreamEvent {
  type?: unknown;
  delta?: unknown;
  response?: { usage?: ResponsesWireUsage | null } | null;
}
