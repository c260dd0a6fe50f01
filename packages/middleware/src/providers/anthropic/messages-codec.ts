import { anthropicCacheReadTokens, anthropicCacheWriteTokens, countOrNaN, wireFamilies, type AnthropicUsage } from '../../translate/index.js';
import { decodeEvent } from '../decode-event.js';
import { nativeRelayCodec } from '../native-relay-codec.js';
import { anthropicMessagesEvent } from '../upstream-events.js';
import { anthropicMessage } from '../upstream-answers.js';
import { inputTokensOf } from './messages-to-chat-response.js';
import { IncompleteStream, type ClientEvent, type Codec, type SeenUsage, type StreamTranslator } from '../codec.js';
import { anthropicMessagesParams } from './params.js';

/**
 * A messages client on an Anthropic route: a native relay. The body passes through with the upstream
 * model; responses and events come back with the alias in `model`.
 */
export const anthropicMessagesCodec: Codec = nativeRelayCodec({
  params: anthropicMessagesParams,
  outputLimitFields: ['max_tokens'],
  upstreamPath: '/v1/messages',
  answer: anthropicMessage,
  usage: messagesUsage,
  stream: (alias) => new MessagesRelayStream(alias),
});

/**
 * Events that carry no output: held until the first that does (or the stream's end), so that a failure before any
 * content — Anthropic reports an overload after `message_start` as an `error` event, most often before the first
 * delta — finds the client's stream not begun yet, and fails over to the next route or answers an error with its
 * status instead of cutting a stream that had begun.
 */
const beforeOutput = new Set(['message_start', 'content_block_start', 'ping']);

/** Relays Anthropic events, renaming the model; a stream without `message_stop` did not finish. */
export class MessagesRelayStream implements StreamTranslator {
  #stopped = false;
  #text = '';
  #usage: SeenUsage = { inputTokens: 0, outputTokens: 0, reported: false };
  /** The events before the first output (beforeOutput), until it comes; then undefined. */
  #held: ClientEvent[] | undefined = [];

  constructor(private readonly alias: string) {}

  push(event: { event?: string; data: string }): ClientEvent[] {
    const data = decodeEvent(event.data, anthropicMessagesEvent);
    this.#text += wireFamilies.messages.generatedTextOf(data);
    if (data.type === 'message_start') {
      // Freshly parsed: renamed in place.
      if (data.message) data.message.model = this.alias;
      // No usage is no report (the tokenizer then bills what was relayed), never a report of zero tokens.
      this.#usage = messagesUsage(data.message?.usage ?? undefined);
    } else if (data.type === 'message_delta') {
      this.#usage = revisedUsage(this.#usage, data.usage as Partial<AnthropicUsage> | undefined);
    } else if (wireFamilies.messages.isNormalEnd(data)) {
      this.#stopped = true;
    } else if (data.type === 'error') {
      // Anthropic reports mid-stream failures as an error event; Tollgate never invents or relays one.
      throw new IncompleteStream(`upstream stream error: ${JSON.stringify(data.error)}`);
    }
    const relayed: ClientEvent = { event: event.event ?? data.type, data };
    const held = this.#held;
    if (held === undefined) return [relayed];
    held.push(relayed);
    if (beforeOutput.has(data.type)) return [];
    this.#held = undefined;
    return held;
  }

  get ended(): boolean {
    return this.#stopped;
  }

  end(): ClientEvent[] {
    if (!this.#stopped) throw new IncompleteStream('upstream messages stream ended without message_stop');
    return [];
  }

  usage(): SeenUsage {
    return this.#usage;
  }

  text(): string {
    return this.#text;
  }
}

/**
 * Anthropic's usage as metered: every prompt token in `inputTokens` (cache reads and writes too), those two apart as
 * well. Without an output count it is no report of none: NaN rejects it, and the tokenizer bills the delivered output.
 */
export function messagesUsage(usage: Partial<AnthropicUsage> | undefined): SeenUsage {
  if (!usage) return { inputTokens: 0, outputTokens: 0, reported: false };
  return { inputTokens: inputTokensOf(usage), outputTokens: countOrNaN(usage.output_tokens), reported: true, cachedInputTokens: anthropicCacheReadTokens(usage), cacheWriteTokens: anthropicCacheWriteTokens(usage) };
}

/**
 * A message_delta's usage over message_start's: it may revise `input_tokens` (recorded fixture
 * anthropic-message-delta-input-tokens) and the cache counts; what it leaves out keeps its earlier value.
 */
function revisedUsage(earlier: SeenUsage, usage: Partial<AnthropicUsage> | undefined): SeenUsage {
  if (!usage) return earlier;
  const cacheRead = usage.cache_read_input_tokens == null ? (earlier.cachedInputTokens ?? 0) : anthropicCacheReadTokens(usage);
  const cacheWrite = usage.cache_creation_input_tokens == null ? (earlier.cacheWriteTokens ?? 0) : anthropicCacheWriteTokens(usage);
  const plain = usage.input_tokens !== undefined ? countOrNaN(usage.input_tokens) : earlier.inputTokens - (earlier.cachedInputTokens ?? 0) - (earlier.cacheWriteTokens ?? 0);
  return { inputTokens: plain + cacheRead + cacheWrite, outputTokens: usage.output_tokens !== undefined ? countOrNaN(usage.output_tokens) : earlier.outputTokens, reported: true, cachedInputTokens: cacheRead, cacheWriteTokens: cacheWrite };
}
