/**
 * The slices of OpenAI's Responses API (`POST /v1/responses`) that translation reads and writes.
 * The request is validated at the boundary (endpoints/responses-schema.ts).
 */
export type ResponsesInputItem =
  | { type?: 'message'; role: 'user' | 'assistant' | 'system' | 'developer'; content: string | { type: string; text?: string; image_url?: string; detail?: string }[] }
  | { type: 'function_call'; call_id: string; name: string; arguments: string; id?: string }
  | { type: 'function_call_output'; call_id: string; output: string | { type: string; text?: string }[] }
  | { type: string; [key: string]: unknown };

export interface ResponsesRequest extends Record<string, unknown> {
  model: string;
  input: string | ResponsesInputItem[];
  instructions?: string | null;
  max_output_tokens?: number | null;
  stream?: boolean | null;
}

export type ResponsesOutputItem =
  | { type: 'message'; id: string; status: 'completed' | 'in_progress' | 'incomplete'; role: 'assistant'; content: ({ type: 'output_text'; text: string; annotations: unknown[] } | { type: 'refusal'; refusal: string })[] }
  | { type: 'function_call'; id: string; status: 'completed' | 'in_progress' | 'incomplete'; call_id: string; name: string; arguments: string };

export interface ResponsesUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens_details: { reasoning_tokens: number };
}

export interface ResponsesResponse extends Record<string, unknown> {
  id: string;
  object: 'response';
  created_at: number;
  status: 'completed' | 'incomplete' | 'in_progress' | 'failed';
  model: string;
  output: ResponsesOutputItem[];
  output_text?: string;
  usage: ResponsesUsage | null;
}

/** One Responses SSE event: its `type` doubles as the SSE event name. */
export interface ResponsesEvent extends Record<string, unknown> {
  type: string;
}
