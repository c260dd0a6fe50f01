import { countOrNaN } from './usage-report.js';
import { openaiCachedTokens } from './cached-prompt-tokens.js';
import { responseShell, responsesUsage } from './chat-to-responses-response.js';
import type { ResponsesEvent, ResponsesOutputItem, ResponsesResponse } from './responses-wire.js';
import type { ChatChunk } from './wire-types.js';

type OpenItem = { kind: 'text' | 'refusal'; outputIndex: number; id: string; text: string } | { kind: 'call'; outputIndex: number; id: string; callId: string; name: string; arguments: string };

/**
 * OpenAI chat chunks → Responses SSE events (`response.created` … `response.completed`). The
 * closing events come from `finish()` only, after a `finish_reason` was seen: a stream that breaks
 * never gets a `response.completed` (DESIGN "Streaming").
 *
 * @example
 * const translate = new ChatToResponsesStream('claude-sonnet', body);
 * for (const chunk of chunks) for (const event of translate.push(chunk)) write(event.type, event);
 * if (translate.finished) for (const event of translate.finish()) write(event.type, event);
 */
export class ChatToResponsesStream {
  #sequence = 0;
  #response: ResponsesResponse | undefined;
  #open: OpenItem | undefined;
  readonly #done: ResponsesOutputItem[] = [];
  readonly #callsByIndex = new Map<number, OpenItem & { kind: 'call' }>();
  #finishReason: string | undefined;
  #usage = { input: 0, output: 0, cached: 0 };

  constructor(
    private readonly alias: string,
    private readonly request: Record<string, unknown>,
    private readonly createdAt = Math.floor(Date.now() / 1000),
  ) {}

  push(chunk: ChatChunk): ResponsesEvent[] {
    const events: ResponsesEvent[] = [];
    if (!this.#response) {
      this.#response = responseShell(chunk.id.replace(/^chatcmpl-/, '').replace(/[^A-Za-z0-9_-]/g, ''), this.alias, this.createdAt, this.request);
      events.push(this.#event('response.created', { response: { ...this.#response } }), this.#event('response.in_progress', { response: { ...this.#response } }));
    }
    if (chunk.usage) this.#usage = { input: countOrNaN(chunk.usage.prompt_tokens), output: countOrNaN(chunk.usage.completion_tokens), cached: openaiCachedTokens(chunk.usage) };
    // A usage chunk may come without `choices` (or with null): OpenAI-compatible servers differ (upstream-events.ts).
    const choice = chunk.choices?.find((c) => c.index === 0);
    if (!choice) return events;
    // A choice may come without its delta (or with null), as the finish chunk of some servers does.
    const delta = choice.delta ?? {};
    if (delta.content) {
      if (this.#open?.kind !== 'text') events.push(...this.#close(), ...this.#openText());
      const open = this.#open as OpenItem & { kind: 'text' };
      open.text += delta.content;
      events.push(this.#event('response.output_text.delta', { item_id: open.id, output_index: open.outputIndex, content_index: 0, delta: delta.content, logprobs: [] }));
    }
    if (delta.refusal) {
      // OpenAI's refusal (structured outputs): a message whose part is a `refusal`, as OpenAI's Responses API streams it.
      if (this.#open?.kind !== 'refusal') events.push(...this.#close(), ...this.#openText('refusal'));
      const open = this.#open as OpenItem & { kind: 'refusal' };
      open.text += delta.refusal;
      events.push(this.#event('response.refusal.delta', { item_id: open.id, output_index: open.outputIndex, content_index: 0, delta: delta.refusal }));
    }
    for (const call of delta.tool_calls ?? []) {
      let open = this.#callsByIndex.get(call.index);
      if (!open) {
        events.push(...this.#close());
        open = { kind: 'call', outputIndex: this.#done.length, id: `fc_${this.#response.id.slice(5)}_${call.index}`, callId: call.id ?? `call_${call.index}`, name: call.function?.name ?? '', arguments: '' };
        this.#callsByIndex.set(call.index, open);
        this.#open = open;
        events.push(this.#event('response.output_item.added', { output_index: open.outputIndex, item: this.#callItem(open, 'in_progress') }));
      }
      const argumentsDelta = call.function?.arguments ?? '';
      if (argumentsDelta) {
        open.arguments += argumentsDelta;
        events.push(this.#event('response.function_call_arguments.delta', { item_id: open.id, output_index: open.outputIndex, delta: argumentsDelta }));
      }
    }
    if (choice.finish_reason) this.#finishReason = choice.finish_reason;
    return events;
  }

  /** Whether the upstream said it finished; without it the stream failed and must end abnormally. */
  get finished(): boolean {
    return this.#finishReason !== undefined;
  }

  /** Closes the open item and completes the response with its usage (`response.incomplete` when cut by the budget). */
  finish(): ResponsesEvent[] {
    const events = this.#close();
    const incomplete = this.#finishReason === 'length' || this.#finishReason === 'content_filter';
    const text = this.#done.flatMap((item) => (item.type === 'message' ? item.content.map((c) => (c.type === 'output_text' ? c.text : '')) : [])).join('');
    const response: ResponsesResponse = {
      ...this.#response!,
      status: incomplete ? 'incomplete' : 'completed',
      incomplete_details: incomplete ? { reason: this.#finishReason === 'length' ? 'max_output_tokens' : 'content_filter' } : null,
      output: [...this.#done],
      output_text: text,
      usage: responsesUsage(this.#usage.input, this.#usage.output, this.#usage.cached),
    };
    events.push(this.#event(incomplete ? 'response.incomplete' : 'response.completed', { response }));
    return events;
  }

  #openText(kind: 'text' | 'refusal' = 'text'): ResponsesEvent[] {
    const open: OpenItem = { kind, outputIndex: this.#done.length, id: `msg_${this.#response!.id.slice(5)}_${this.#done.length}`, text: '' };
    this.#open = open;
    return [
      this.#event('response.output_item.added', { output_index: open.outputIndex, item: { type: 'message', id: open.id, status: 'in_progress', role: 'assistant', content: [] } }),
      this.#event('response.content_part.added', { item_id: open.id, output_index: open.outputIndex, content_index: 0, part: kind === 'refusal' ? { type: 'refusal', refusal: '' } : { type: 'output_text', text: '', annotations: [] } }),
    ];
  }

  #close(): ResponsesEvent[] {
    const open = this.#open;
    if (!open) return [];
    this.#open = undefined;
    if (open.kind === 'call') {
      const item = this.#callItem(open, 'completed');
      this.#done.push(item);
      return [
        this.#event('response.function_call_arguments.done', { item_id: open.id, output_index: open.outputIndex, name: open.name, arguments: open.arguments }),
        this.#event('response.output_item.done', { output_index: open.outputIndex, item }),
      ];
    }
    if (open.kind === 'refusal') {
      const part = { type: 'refusal' as const, refusal: open.text };
      const item: ResponsesOutputItem = { type: 'message', id: open.id, status: 'completed', role: 'assistant', content: [part] };
      this.#done.push(item);
      return [
        this.#event('response.refusal.done', { item_id: open.id, output_index: open.outputIndex, content_index: 0, refusal: open.text }),
        this.#event('response.content_part.done', { item_id: open.id, output_index: open.outputIndex, content_index: 0, part }),
        this.#event('response.output_item.done', { output_index: open.outputIndex, item }),
      ];
    }
    const part = { type: 'output_text' as const, text: open.text, annotations: [] };
    const item: ResponsesOutputItem = { type: 'message', id: open.id, status: 'completed', role: 'assistant', content: [part] };
    this.#done.push(item);
    return [
      this.#event('response.output_text.done', { item_id: open.id, output_index: open.outputIndex, content_index: 0, text: open.text, logprobs: [] }),
      this.#event('response.content_part.done', { item_id: open.id, output_index: open.outputIndex, content_index: 0, part }),
      this.#event('response.output_item.done', { output_index: open.outputIndex, item }),
    ];
  }

  #callItem(open: OpenItem & { kind: 'call' }, status: 'in_progress' | 'completed'): ResponsesOutputItem {
    return { type: 'function_call', id: open.id, status, call_id: open.callId, name: open.name, arguments: status === 'completed' ? open.arguments : '' };
  }

  #event(type: string, fields: Record<string, unknown>): ResponsesEvent {
    return { type, sequence_number: this.#sequence++, ...fields };
  }
}
