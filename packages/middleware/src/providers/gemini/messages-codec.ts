import { ChatToMessagesStream, chatToMessagesResponse, openaiCachedTokens, messagesToChatRequest, type MessagesRequest } from '../../translate/index.js';
import { IncompleteStream, type ClientEvent, type Codec, type SeenUsage, type StreamTranslator } from '../codec.js';
import { geminiGeneratePath, geminiUsage } from './chat-codec.js';
import { chatToGeminiRequest } from './chat-to-gemini-request.js';
import type { GeminiResponse } from './gemini-wire.js';
import { geminiToChatResponse } from './gemini-to-chat-response.js';
import { GeminiToChatStream } from './gemini-to-chat-stream.js';
import { geminiParamsForMessagesClients } from './params.js';

/** A messages client on a Gemini route: through the chat pivot both ways (messages ⇄ chat ⇄ Gemini). */
export const geminiMessagesCodec: Codec = {
  params: geminiParamsForMessagesClients,
  outputLimitFields: ['max_tokens'],
  upstreamPath: geminiGeneratePath,
  request(body, target) {
    const request = chatToGeminiRequest(messagesToChatRequest(body as MessagesRequest, target.model));
    if (typeof body.top_k === 'number') request.generationConfig.topK = body.top_k;
    return request;
  },
  response(upstream, target) {
    const response = upstream as GeminiResponse;
    return { body: chatToMessagesResponse(geminiToChatResponse(response, target.alias), target.alias), usage: geminiUsage(response) };
  },
  stream: (target, _clientBody, promptTokens) => new GeminiToMessagesTranslator(target.alias, promptTokens),
};

class GeminiToMessagesTranslator implements StreamTranslator {
  readonly #toChat: GeminiToChatStream;
  readonly #toMessages: ChatToMessagesStream;

  constructor(alias: string, promptTokens: (() => number) | undefined) {
    this.#toChat = new GeminiToChatStream(alias, { includeUsage: true });
    this.#toMessages = new ChatToMessagesStream(alias, { promptTokens });
  }

  push(event: { data: string }): ClientEvent[] {
    return this.#toChat.push(JSON.parse(event.data) as GeminiResponse).flatMap((chunk) => this.#toMessages.push(chunk)).map((e) => ({ event: e.type, data: e }));
  }

  end(): ClientEvent[] {
    // A failed generation is never closed with message_delta/message_stop (DESIGN, contract §6.1 rule 3).
    if (!this.#toChat.finished) throw new IncompleteStream('upstream Gemini stream ended without a finishReason');
    return this.#toMessages.finish().map((e) => ({ event: e.type, data: e }));
  }

  usage(): SeenUsage {
    const usage = this.#toChat.usage;
    return usage ? { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens, reported: true, cachedInputTokens: openaiCachedTokens(usage) } : { inputTokens: 0, outputTokens: 0, reported: false };
  }

  text(): string {
    return this.#toChat.text;
  }
}
