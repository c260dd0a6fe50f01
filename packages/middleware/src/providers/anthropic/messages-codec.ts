import { countOrNaN, endsMessagesStream, inputTokensOf, type AnthropicEvent, type MessagesResponse } from '../../translate/index.js';
import { IncompleteStream, type ClientEvent, type Codec, type SeenUsage, type StreamTranslator } from '../codec.js';
import { anthropicMessagesParams } from './params.js';

/** Headers a messages client may send that Anthropic needs to see (beta features). */
const forwardedHeaders = ['anthropic-beta'] as const;

/**
 * A messages client on an Anthropic route: a native relay. The body passes through with the upstream
 * model; responses and events come back with the alias in `model`.
 */
export const anthropicMessagesCodec: Codec = {
  params: anthropicMessagesParams,
  outputLimitFields: ['max_tokens'],
  upstreamPath: () => '/v1/messages',
  request: (body, target) => ({ ...body, model: target.model }),
  response(upstream, target) {
    const message = { ...(upstream as MessagesResponse), model: target.alias };
    return { body: message, usage: messagesUsage(message.usage) };
  },
  stream: (target) => new MessagesRelayStream(target.alias),
};

export function forwardAnthropicHeaders(clientHeaders: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of forwardedHeaders) {
    const value = clientHeaders[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

/** Relays Anthropic events, renaming the model; a stream without `message_stop` did not finish. */
export class MessagesRelayStream implements StreamTranslator {
  #stopped = false;
  #text = '';
  #usage: SeenUsage = { inputTokens: 0, outputTokens: 0, reported: false };

  constructor(private readonly alias: string) {}

  push(event: { event?: string; data: string }): ClientEvent[] {
    const data = JSON.parse(event.data) as AnthropicEvent;
    if (data.type === 'message_start') {
      const message = data.message as MessagesResponse;
      data.message = { ...message, model: this.alias };
      this.#usage = { inputTokens: inputTokensOf(message.usage ?? {}), outputTokens: countOrNaN(message.usage?.output_tokens ?? 0), reported: true };
    } else if (data.type === 'content_block_delta') {
      const delta = data.delta as { text?: string; partial_json?: string };
      this.#text += delta.text ?? delta.partial_json ?? '';
    } else if (data.type === 'message_delta') {
      const usage = data.usage as { input_tokens?: number; output_tokens?: number } | undefined;
      this.#usage = { inputTokens: usage?.input_tokens === undefined ? this.#usage.inputTokens : countOrNaN(usage.input_tokens), outputTokens: usage?.output_tokens === undefined ? this.#usage.outputTokens : countOrNaN(usage.output_tokens), reported: true };
    } else if (endsMessagesStream(data)) {
      this.#stopped = true;
    } else if (data.type === 'error') {
      // Anthropic reports mid-stream failures as an error event; Tollgate never invents or relays one.
      throw new IncompleteStream(`upstream stream error: ${JSON.stringify(data.error)}`);
    }
    return [{ event: event.event ?? data.type, data }];
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

export function messagesUsage(usage: MessagesResponse['usage'] | undefined): SeenUsage {
  if (!usage) return { inputTokens: 0, outputTokens: 0, reported: false };
  return { inputTokens: inputTokensOf(usage), outputTokens: countOrNaN(usage.output_tokens ?? 0), reported: true };
}
