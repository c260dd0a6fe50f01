import { countOrNaN } from './usage-report.js';
import { openaiCachedTokens } from './cached-prompt-tokens.js';
import { stopReasonFromFinishReason } from './map-stop-reason.js';
import { messagesUsageOfChat } from './chat-to-messages-response.js';
import type { AnthropicEvent, ChatChunk } from './wire-types.js';

type OpenBlock = { kind: 'text'; index: number } | { kind: 'tool'; index: number; toolIndex: number };

/**
 * OpenAI chat chunks → Anthropic SSE events. Usage arrives after the `finish_reason` chunk (OpenAI's
 * `include_usage`), so the closing `message_delta` + `message_stop` are emitted by `finish()` at the
 * upstream's normal end — and only if a `finish_reason` was seen (DESIGN: a failed generation is visible).
 *
 * @example
 * const translate = new ChatToMessagesStream('gpt', { promptTokens: () => 12 });
 * for (const chunk of chunks) for (const event of translate.push(chunk)) write(event);
 * for (const event of translate.finish()) write(event);
 */
export class ChatToMessagesStream {
  #started = false;
  #open: OpenBlock | undefined;
  #nextBlock = 0;
  #finishReason: string | undefined;
  #refused = false;
  #inputTokens = 0;
  #outputTokens = 0;
  #cachedInputTokens = 0;

  constructor(
    private readonly alias: string,
    private readonly options: {
      /**
       * The prompt's token count as best known before upstream reports usage (Tollgate's tokenizer
       * estimate): real Anthropic sends the prompt count in `message_start`, and some clients (LangChain)
       * read it only there.
       */
      promptTokens?: () => number;
    } = {},
  ) {}

  push(chunk: ChatChunk): AnthropicEvent[] {
    const events: AnthropicEvent[] = [];
    if (!this.#started) {
      this.#started = true;
      events.push(this.#messageStart(chunk.id));
    }
    if (chunk.usage) {
      this.#inputTokens = countOrNaN(chunk.usage.prompt_tokens);
      this.#outputTokens = countOrNaN(chunk.usage.completion_tokens);
      this.#cachedInputTokens = openaiCachedTokens(chunk.usage);
    }
    // A usage chunk may come without `choices` (or with null): OpenAI-compatible servers differ (upstream-events.ts).
    const choice = chunk.choices?.[0];
    if (!choice) return events;
    // A choice may come without its delta (or with null), as the finish chunk of some servers does.
    const delta = choice.delta ?? {};
    // OpenAI's refusal (structured outputs) is text of an answer that stops with Anthropic's `refusal`.
    if (delta.refusal) this.#refused = true;
    for (const text of [delta.content, delta.refusal]) {
      if (!text) continue;
      if (this.#open?.kind !== 'text') events.push(...this.#openBlock({ kind: 'text' }, { type: 'text', text: '' }));
      events.push({ type: 'content_block_delta', index: this.#open!.index, delta: { type: 'text_delta', text } });
    }
    for (const call of delta.tool_calls ?? []) {
      const isNew = this.#open?.kind !== 'tool' || this.#open.toolIndex !== call.index;
      if (isNew) {
        events.push(...this.#openBlock({ kind: 'tool', toolIndex: call.index }, { type: 'tool_use', id: call.id ?? `toolu_${call.index}`, name: call.function?.name ?? '', input: {} }));
      }
      if (call.function?.arguments) {
        events.push({ type: 'content_block_delta', index: this.#open!.index, delta: { type: 'input_json_delta', partial_json: call.function.arguments } });
      }
    }
    if (choice.finish_reason) this.#finishReason = choice.finish_reason;
    return events;
  }

  /** Whether the upstream said it finished; without it the stream failed and must end abnormally. */
  get finished(): boolean {
    return this.#finishReason !== undefined;
  }

  get usage(): { inputTokens: number; outputTokens: number; cachedInputTokens: number } {
    return { inputTokens: this.#inputTokens, outputTokens: this.#outputTokens, cachedInputTokens: this.#cachedInputTokens };
  }

  finish(): AnthropicEvent[] {
    const events: AnthropicEvent[] = [];
    if (!this.#started) events.push(this.#messageStart('tollgate'));
    events.push(...this.#closeBlock());
    events.push({
      type: 'message_delta',
      delta: { stop_reason: this.#refused ? 'refusal' : stopReasonFromFinishReason(this.#finishReason), stop_sequence: null },
      usage: messagesUsageOfChat(this.#inputTokens, this.#outputTokens, this.#cachedInputTokens),
    });
    events.push({ type: 'message_stop' });
    return events;
  }

  #messageStart(id: string): AnthropicEvent {
    return {
      type: 'message_start',
      message: { id: `msg_${id.replace(/^chatcmpl-/, '')}`, type: 'message', role: 'assistant', model: this.alias, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: this.options.promptTokens?.() ?? 0, output_tokens: 0 } },
    };
  }

  #openBlock(block: { kind: 'text' } | { kind: 'tool'; toolIndex: number }, contentBlock: Record<string, unknown>): AnthropicEvent[] {
    const events = this.#closeBlock();
    const index = this.#nextBlock++;
    this.#open = { ...block, index } as OpenBlock;
    events.push({ type: 'content_block_start', index, content_block: contentBlock });
    return events;
  }

  #closeBlock(): AnthropicEvent[] {
    if (!this.#open) return [];
    const { index } = this.#open;
    this.#open = undefined;
    return [{ type: 'content_block_stop', index }];
  }
}
