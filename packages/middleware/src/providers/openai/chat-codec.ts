import { countOrNaN, openaiCachedTokens, wireFamilies, type ChatCompletion } from '../../translate/index.js';
import type { ChatStreamChunk, ChatWireUsage } from '@tollgate/wire-families';
import { IncompleteStream, type ClientEvent, type Codec, type RouteTarget, type SeenUsage } from '../codec.js';
import { decodeEvent } from '../decode-event.js';
import { ProgressRelay } from '../stream-progress.js';
import { openaiChatChunk } from '../upstream-events.js';
import { checkAnswer, openaiChatCompletion } from '../upstream-answers.js';
import { openaiChatParams } from './params.js';

/**
 * A chat client on an OpenAI-kind route: a native relay. Unknown fields pass through untouched (so
 * vLLM or Ollama extensions keep working); only `model` and, for streams, usage reporting change.
 */
export const openaiChatCodec: Codec = {
  params: openaiChatParams,
  outputLimitFields: ['max_tokens', 'max_completion_tokens'],
  upstreamPath: () => '/chat/completions',
  request(body, target) {
    const upstream = withOutputBudget(body, target);
    // Metering needs stream usage; the client sees the usage chunk only if it asked (see the translator).
    if (body.stream === true) upstream.stream_options = { ...(body.stream_options as object | undefined), include_usage: true };
    return upstream;
  },
  response(upstream, target) {
    checkAnswer(upstream, openaiChatCompletion);
    const completion = { ...(upstream as ChatCompletion), model: target.alias };
    return { body: completion, usage: chatUsage(completion.usage) };
  },
  stream(target, clientBody) {
    const wantsUsage = (clientBody.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    return new ChatRelayStream(target.alias, wantsUsage);
  },
};

/**
 * The client's body for the route's model, its output budget in the field the deployment takes
 * (`RouteTarget.chatOutputLimitField`): a body without one gets the budget its reservation holds (README
 * "Reservations"), so the server's own default (often the model's maximum) cannot take a wallet past its overdraft;
 * where the field is `max_completion_tokens` (OpenAI itself), a `max_tokens` — the client's, or a translated Messages
 * request's — is sent under that name, which means the same there and which its reasoning models require.
 */
function withOutputBudget(body: Record<string, unknown>, target: RouteTarget): Record<string, unknown> {
  const field = target.chatOutputLimitField ?? 'max_tokens';
  const upstream: Record<string, unknown> = { ...body, model: target.model };
  if (field === 'max_completion_tokens' && 'max_tokens' in upstream) {
    if (typeof upstream.max_completion_tokens !== 'number') upstream.max_completion_tokens = upstream.max_tokens;
    delete upstream.max_tokens;
  }
  if (typeof upstream.max_tokens !== 'number' && typeof upstream.max_completion_tokens !== 'number') upstream[field] = target.defaultMaxTokens;
  return upstream;
}

/** Relays chat chunks, renaming the model and holding back the usage chunk the client did not ask for. */
export class ChatRelayStream extends ProgressRelay<ChatStreamChunk, ChatWireUsage> {
  constructor(
    private readonly alias: string,
    private readonly wantsUsage: boolean,
  ) {
    super(wireFamilies.chat, chatUsage, 'upstream chat stream ended without a finish_reason', [{ data: '[DONE]' }]);
  }

  /**
   * `[DONE]` came, or the usage chunk after every started choice finished: OpenAI's last events (StreamTranslator.ended).
   * Tollgate always asks for that usage chunk, which OpenAI sends after the last finish_reason and just before
   * `[DONE]`, so a server that sends no `[DONE]` and holds its connection open does not hold the client too.
   */
  ended = false;
  /** Choices (n > 1) that sent something, and those that sent their finish_reason: each must finish. */
  readonly #started = new Set<number>();
  readonly #finished = new Set<number>();

  push(event: { data: string }): ClientEvent[] {
    if (event.data === '[DONE]') {
      this.ended = true;
      return [];
    }
    const chunk = decodeEvent(event.data, openaiChatChunk);
    // OpenAI-compatible servers report a failed stream as `{"error": {...}}`: a failure, never a chunk to relay
    // (as Anthropic's error event), so before any output it is retried and failed over.
    const { error } = chunk as { error?: unknown };
    if (error !== undefined && error !== null) throw new IncompleteStream(`upstream stream error: ${JSON.stringify(error).slice(0, 500)}`);
    chunk.model = this.alias;
    this.progress.see(chunk);
    for (const choice of chunk.choices ?? []) {
      const index = typeof (choice as { index?: unknown }).index === 'number' ? (choice as { index: number }).index : 0;
      this.#started.add(index);
      if (choice.finish_reason) this.#finished.add(index);
    }
    const isUsageOnly = (chunk.choices ?? []).length === 0 && chunk.usage;
    if (isUsageOnly && this.#started.size > 0 && this.#finished.size === this.#started.size) this.ended = true;
    if (isUsageOnly && !this.wantsUsage) return [];
    if (!this.wantsUsage && chunk.usage !== undefined) delete chunk.usage;
    return [{ data: chunk }];
  }

  /** A stream ends normally only when every choice it started finished (one finish_reason is not all of n). */
  override end(): ClientEvent[] {
    const closing = super.end();
    for (const index of this.#started) if (!this.#finished.has(index)) throw new IncompleteStream(`upstream chat stream ended without a finish_reason for choice ${index}`);
    return closing;
  }
}

/** A usage without an output count is not a report of none: NaN rejects it, and the tokenizer bills the delivered output. */
export function chatUsage(usage: { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number | null } | null } | null | undefined): SeenUsage {
  if (!usage) return { inputTokens: 0, outputTokens: 0, reported: false };
  return { inputTokens: countOrNaN(usage.prompt_tokens ?? 0), outputTokens: countOrNaN(usage.completion_tokens), reported: true, cachedInputTokens: openaiCachedTokens(usage) };
}
