import { ChatToMessagesStream, chatToMessagesResponse, messagesToChatRequest, type ChatChunk, type ChatCompletion, type MessagesRequest } from '../../translate/index.js';
import { IncompleteStream, type ClientEvent, type Codec, type SeenUsage, type StreamTranslator } from '../codec.js';
import { chatUsage } from './chat-codec.js';
import { openaiParamsForMessagesClients } from './params.js';

/** A messages client on an OpenAI-kind route: translated both ways through chat completions. */
export const openaiMessagesCodec: Codec = {
  params: openaiParamsForMessagesClients,
  outputLimitFields: ['max_tokens'],
  upstreamPath: () => '/chat/completions',
  request: (body, target) => messagesToChatRequest(body as MessagesRequest, target.model),
  response(upstream, target) {
    const completion = upstream as ChatCompletion;
    return { body: chatToMessagesResponse(completion, target.alias), usage: chatUsage(completion.usage) };
  },
  stream: (target, _clientBody, promptTokens) => new ChatToMessagesTranslator(target.alias, promptTokens),
};

class ChatToMessagesTranslator implements StreamTranslator {
  readonly #translate: ChatToMessagesStream;
  #text = '';
  #reported = false;

  constructor(alias: string, promptTokens: (() => number) | undefined) {
    this.#translate = new ChatToMessagesStream(alias, { promptTokens });
  }

  push(event: { data: string }): ClientEvent[] {
    if (event.data === '[DONE]') return [];
    const chunk = JSON.parse(event.data) as ChatChunk;
    if (chunk.usage) this.#reported = true;
    for (const choice of chunk.choices ?? []) this.#text += choice.delta?.content ?? '';
    return this.#translate.push(chunk).map(named);
  }

  end(): ClientEvent[] {
    if (!this.#translate.finished) throw new IncompleteStream('upstream chat stream ended without a finish_reason');
    return this.#translate.finish().map(named);
  }

  usage(): SeenUsage {
    return { ...this.#translate.usage, reported: this.#reported };
  }

  text(): string {
    return this.#text;
  }
}

function named(event: { type: string }): ClientEvent {
  return { event: event.type, data: event };
}
