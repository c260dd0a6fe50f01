import { countOrNaN } from './usage-report.js';
import { openaiCachedTokens } from './cached-prompt-tokens.js';
import type { ChatCompletion } from './wire-types.js';
import type { ResponsesOutputItem, ResponsesResponse, ResponsesUsage } from './responses-wire.js';

/**
 * OpenAI chat completion → Responses object naming the alias: the text as one `message` item,
 * each tool call as a `function_call` item; `finish_reason: "length"` is status `incomplete`.
 *
 * @example
 * chatToResponsesResponse(completion, 'claude-sonnet').output_text // 'Hello!'
 */
export function chatToResponsesResponse(completion: ChatCompletion, alias: string, request: Record<string, unknown> = {}): ResponsesResponse {
  const choice = completion.choices[0];
  const id = responseIdOf(completion.id);
  const output: ResponsesOutputItem[] = [];
  const text = choice?.message.content ?? '';
  const refusal = choice?.message.refusal;
  // OpenAI's refusal (structured outputs) is a `refusal` content part in Responses, as OpenAI's own Responses API sends it.
  if (text || refusal) output.push({ type: 'message', id: `msg_${id}`, status: 'completed', role: 'assistant', content: [...(text ? [{ type: 'output_text' as const, text, annotations: [] }] : []), ...(refusal ? [{ type: 'refusal' as const, refusal }] : [])] });
  (choice?.message.tool_calls ?? []).forEach((call, n) => {
    output.push({ type: 'function_call', id: `fc_${id}_${n}`, status: 'completed', call_id: call.id, name: call.function.name, arguments: call.function.arguments });
  });
  const incomplete = choice?.finish_reason === 'length' || choice?.finish_reason === 'content_filter';
  return {
    ...responseShell(id, alias, completion.created, request),
    status: incomplete ? 'incomplete' : 'completed',
    incomplete_details: incomplete ? { reason: choice?.finish_reason === 'length' ? 'max_output_tokens' : 'content_filter' } : null,
    output,
    output_text: text,
    usage: responsesUsage(countOrNaN(completion.usage?.prompt_tokens ?? 0), countOrNaN(completion.usage?.completion_tokens ?? 0), completion.usage ? openaiCachedTokens(completion.usage) : 0),
  };
}

/** The fields every Responses object carries, echoing the request's settings. */
export function responseShell(id: string, alias: string, createdAt: number, request: Record<string, unknown>): ResponsesResponse {
  return {
    id: `resp_${id}`,
    object: 'response',
    created_at: createdAt,
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: alias,
    output: [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: null,
    temperature: request.temperature ?? null,
    top_p: request.top_p ?? null,
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    text: request.text ?? { format: { type: 'text' } },
    metadata: request.metadata ?? {},
    usage: null,
  };
}

/** `cached` is the part of `input` read from the provider's prompt cache (OpenAI's `input_tokens_details`). */
export function responsesUsage(input: number, output: number, cached = 0): ResponsesUsage {
  return { input_tokens: input, output_tokens: output, total_tokens: input + output, input_tokens_details: { cached_tokens: cached }, output_tokens_details: { reasoning_tokens: 0 } };
}

function responseIdOf(chatId: string): string {
  return chatId.replace(/^chatcmpl-/, '').replace(/[^A-Za-z0-9_-]/g, '') || 'tollgate';
}
