import { anthropicCacheReadTokens, anthropicCacheWriteTokens, countOrNaN, finishReasonFromStopReason, type AnthropicEvent, type ChatChunk, type ChatChunkDelta, type ChatUsage } from '../../translate/index.js';

type AnthropicUsageFields = { input_tokens?: number; cache_read_input_tokens?: number | null; cache_creation_input_tokens?: number | null };

/**
 * Anthropic SSE events → OpenAI chat chunks. The `finish_reason` chunk is emitted only on
 * `message_stop`, so an upstream stream that breaks never looks finished (DESIGN "Streaming").
 *
 * @example
 * const translate = new MessagesToChatStream('claude-sonnet', { includeUsage: false });
 * for (const event of events) for (const chunk of translate.push(event)) write(chunk);
 */
export class MessagesToChatStream {
  #id = 'chatcmpl-tollgate';
  #created = Math.floor(Date.now() / 1000);
  #toolIndexByBlock = new Map<number, number>();
  /** Tool blocks whose input has had a non-empty fragment: one with none is a call without arguments, `{}`. */
  readonly #toolsWithInput = new Set<number>();
  #finishReason = 'stop';
  #usage: ChatUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  /** Anthropic's prompt parts as last reported: a message_delta may revise some and omit others. */
  #plainInput = 0;
  #cacheRead = 0;
  #cacheWrite = 0;

  constructor(
    private readonly alias: string,
    private readonly options: { includeUsage: boolean },
  ) {}

  push(event: AnthropicEvent): ChatChunk[] {
    switch (event.type) {
      case 'message_start': {
        const message = event.message as { id: string; usage?: AnthropicUsageFields };
        this.#id = `chatcmpl-${message.id}`;
        this.#reviseInput(message.usage);
        this.#setUsage(0);
        return [this.#chunk({ role: 'assistant', content: '' })];
      }
      case 'content_block_start': {
        const block = event.content_block as { type: string; id?: string; name?: string };
        if (block.type !== 'tool_use') return [];
        const index = this.#toolIndexByBlock.size;
        this.#toolIndexByBlock.set(event.index as number, index);
        return [this.#chunk({ tool_calls: [{ index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] })];
      }
      case 'content_block_delta': {
        const delta = event.delta as { type: string; text?: string; partial_json?: string };
        if (delta.type === 'text_delta') return [this.#chunk({ content: delta.text ?? '' })];
        if (delta.type === 'input_json_delta') {
          const index = this.#toolIndexByBlock.get(event.index as number) ?? 0;
          if (delta.partial_json) this.#toolsWithInput.add(event.index as number);
          return [this.#chunk({ tool_calls: [{ index, function: { arguments: delta.partial_json ?? '' } }] })];
        }
        return [];
      }
      case 'content_block_stop': {
        // Anthropic streams a call without arguments as `partial_json: ""` (recorded anthropic-tool-no-args): its
        // arguments are `{}`, as OpenAI sends them and as the same answer gives unstreamed (JSON.stringify(input)).
        const block = event.index as number;
        const index = this.#toolIndexByBlock.get(block);
        if (index === undefined || this.#toolsWithInput.has(block)) return [];
        this.#toolsWithInput.add(block);
        return [this.#chunk({ tool_calls: [{ index, function: { arguments: '{}' } }] })];
      }
      case 'message_delta': {
        const delta = event.delta as { stop_reason?: string | null };
        const usage = event.usage as (AnthropicUsageFields & { output_tokens?: number }) | undefined;
        this.#finishReason = finishReasonFromStopReason(delta.stop_reason);
        // message_delta may revise input tokens (recorded fixture anthropic-message-delta-input-tokens).
        this.#reviseInput(usage);
        this.#setUsage(usage?.output_tokens === undefined ? this.#usage.completion_tokens : countOrNaN(usage.output_tokens));
        return [];
      }
      case 'message_stop': {
        const finish = this.#chunk({}, this.#finishReason);
        if (!this.options.includeUsage) return [finish];
        return [finish, { ...this.#chunk({}), choices: [], usage: { ...this.#usage } }];
      }
      case 'error':
        throw new Error(`upstream stream error: ${JSON.stringify(event.error)}`);
      default:
        return [];
    }
  }

  get usage(): ChatUsage {
    return this.#usage;
  }

  get cacheWriteTokens(): number {
    return this.#cacheWrite;
  }

  #reviseInput(usage: AnthropicUsageFields | undefined): void {
    if (!usage) return;
    this.#plainInput = usage.input_tokens === undefined ? this.#plainInput : countOrNaN(usage.input_tokens);
    if (usage.cache_read_input_tokens != null) this.#cacheRead = anthropicCacheReadTokens(usage);
    if (usage.cache_creation_input_tokens != null) this.#cacheWrite = anthropicCacheWriteTokens(usage);
  }

  /** Every prompt token in `prompt_tokens`, the cache reads also in OpenAI's `cached_tokens` (the metering reads them there). */
  #setUsage(output: number): void {
    const input = this.#plainInput + this.#cacheRead + this.#cacheWrite;
    this.#usage = { prompt_tokens: input, completion_tokens: output, total_tokens: input + output, prompt_tokens_details: { cached_tokens: this.#cacheRead } };
  }

  #chunk(delta: ChatChunkDelta, finishReason: string | null = null): ChatChunk {
    return { id: this.#id, object: 'chat.completion.chunk', created: this.#created, model: this.alias, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] };
  }
}
