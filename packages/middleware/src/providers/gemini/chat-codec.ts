import { countOrNaN, geminiCachedTokens, openaiCachedTokens, type ChatRequest } from '../../translate/index.js';
import { IncompleteStream, type ClientEvent, type Codec, type RouteTarget, type SeenUsage, type StreamTranslator } from '../codec.js';
import { decodeEvent } from '../decode-event.js';
import { chatToGeminiRequest } from './chat-to-gemini-request.js';
import { geminiStreamEvent } from './gemini-events.js';
import type { GeminiResponse } from './gemini-wire.js';
import { geminiOutputCount, geminiToChatResponse } from './gemini-to-chat-response.js';
import { GeminiToChatStream } from './gemini-to-chat-stream.js';
import { geminiParamsForChatClients } from './params.js';

/**
 * A chat client on a Gemini route: chat → `generateContent` and back. Gemini puts the model and the
 * method in the path; streams use `streamGenerateContent?alt=sse`.
 */
export const geminiChatCodec: Codec = {
  params: geminiParamsForChatClients,
  outputLimitFields: ['max_tokens', 'max_completion_tokens'],
  upstreamPath: geminiGeneratePath,
  request: (body, target) => chatToGeminiRequest(body as ChatRequest, target.defaultMaxTokens),
  response(upstream, target) {
    // A 2xx body that is not a generateContent answer (an error object, `{}`) is an unreadable answer: retried,
    // then 502 (usageCheckedCodec), never an empty answer that looks blocked.
    if (!geminiStreamEvent.is(upstream) || (!upstream.candidates?.length && !upstream.promptFeedback?.blockReason)) {
      throw new Error('a Gemini answer with no candidates and no promptFeedback.blockReason');
    }
    const response = upstream;
    return { body: geminiToChatResponse(response, target.alias), usage: geminiUsage(response) };
  },
  stream(target, clientBody) {
    const includeUsage = (clientBody.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    return new GeminiChatTranslator(target.alias, includeUsage);
  },
};

/** `/models/{model}:generateContent`, or its SSE variant for streams. */
export function geminiGeneratePath(target: RouteTarget, stream: boolean): string {
  const model = encodeURIComponent(target.model.replace(/^models\//, ''));
  return stream ? `/models/${model}:streamGenerateContent?alt=sse` : `/models/${model}:generateContent`;
}

export function geminiUsage(response: GeminiResponse): SeenUsage {
  const usage = response.usageMetadata;
  if (!usage) return { inputTokens: 0, outputTokens: 0, reported: false };
  return { inputTokens: countOrNaN(usage.promptTokenCount ?? 0), outputTokens: geminiOutputCount(usage), reported: true, cachedInputTokens: geminiCachedTokens(usage) };
}

/** Gemini SSE → chat chunks; the stream finished only if every candidate sent a finishReason. */
export class GeminiChatTranslator implements StreamTranslator {
  readonly #translate: GeminiToChatStream;

  constructor(alias: string, includeUsage: boolean) {
    this.#translate = new GeminiToChatStream(alias, { includeUsage });
  }

  push(event: { data: string }): ClientEvent[] {
    return this.#translate.push(decodeEvent(event.data, geminiStreamEvent)).map((chunk) => ({ data: chunk }));
  }

  /**
   * Every candidate sent its finishReason: Gemini's stream has no end event of its own (it ends with its connection),
   * and the chunk with the finishReason, which carries the final usageMetadata, is its last. So a connection held
   * open after it (a proxy) ends for the client at once instead of at the idle timeout (StreamTranslator.ended).
   */
  get ended(): boolean {
    return this.#translate.finished;
  }

  end(): ClientEvent[] {
    // DESIGN "does better" than contract §6.1 rule 4: no finish_reason is ever added to a failed stream.
    if (!this.#translate.finished) throw new IncompleteStream('upstream Gemini stream ended without a finishReason');
    return [{ data: '[DONE]' }];
  }

  usage(): SeenUsage {
    const usage = this.#translate.usage;
    return usage ? { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens, reported: true, cachedInputTokens: openaiCachedTokens(usage) } : { inputTokens: 0, outputTokens: 0, reported: false };
  }

  text(): string {
    return this.#translate.text;
  }
}
