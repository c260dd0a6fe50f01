import type { ChatRequest } from '../../translate/index.js';
import { IncompleteStream, type ClientEvent, type Codec, type RouteTarget, type SeenUsage, type StreamTranslator } from '../codec.js';
import { chatToConverseRequest } from './chat-to-converse-request.js';
import { converseResponseSchema } from './converse-wire.js';
import { converseToChatResponse, seenUsageOfConverse } from './converse-to-chat-response.js';
import { ConverseToChatStream } from './converse-stream-to-chat.js';
import type { UpstreamEvent } from '../provider-definition.js';
import { bedrockParamsForChatClients } from './params.js';
import { UpstreamFailure } from '../../upstream/index.js';

/**
 * A chat client on a Bedrock route: chat → Converse and back. Messages and Responses clients reach
 * Bedrock through this codec with the generic wrappers (messagesViaChat, responsesViaChat).
 */
export const bedrockChatCodec: Codec = {
  params: bedrockParamsForChatClients,
  outputLimitFields: ['max_tokens', 'max_completion_tokens'],
  upstreamPath: bedrockPath,
  request: (body, target) => chatToConverseRequest(body as ChatRequest, target.defaultMaxTokens),
  response: chatAnswerOf,
  stream: (target, clientBody) => new BedrockChatTranslator(target.alias, (clientBody.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true),
};

/** A Converse answer, checked, as a chat completion and the usage to bill. */
function chatAnswerOf(upstream: unknown, target: RouteTarget): { body: unknown; usage: SeenUsage } {
  const parsed = converseResponseSchema.safeParse(upstream);
  // A 2xx body that is not a Converse answer is an unreadable answer, as one that is not JSON (upstream-client.ts).
  if (!parsed.success) throw new UpstreamFailure(`Upstream Bedrock answer has an unexpected shape: ${parsed.error.issues[0]?.message ?? ''}`, {});
  return { body: converseToChatResponse(parsed.data, target.alias), usage: seenUsageOfConverse(parsed.data.usage) };
}

/**
 * `/model/{modelId}/converse`, or `/converse-stream` for streams. The model id is one path segment,
 * encoded: ids carry `:` (`anthropic.claude-3-5-sonnet-20240620-v1:0`) and ARNs `/`.
 */
export function bedrockPath(target: RouteTarget, stream: boolean): string {
  return `/model/${encodeURIComponent(target.model)}/${stream ? 'converse-stream' : 'converse'}`;
}

/** ConverseStream events → chat chunks; finished only after `messageStop`. */
class BedrockChatTranslator implements StreamTranslator {
  readonly #translate: ConverseToChatStream;

  constructor(alias: string, includeUsage: boolean) {
    this.#translate = new ConverseToChatStream(alias, { includeUsage });
  }

  push(event: UpstreamEvent): ClientEvent[] {
    return this.#translate.push(event).map((chunk) => ({ data: chunk }));
  }

  /** `metadata` closed a finished stream: nothing after it belongs to the answer (model-call.ts AFTER_LAST_EVENT_MS). */
  get ended(): boolean {
    return this.#translate.ended;
  }

  end(): ClientEvent[] {
    // DESIGN "does better" than contract §6.1: no finish_reason is ever added to a failed stream.
    if (!this.#translate.finished) throw new IncompleteStream('upstream Bedrock stream ended without messageStop');
    // A stream that ended cleanly after messageStop without metadata still finished: its finish_reason goes now.
    const closing: ClientEvent[] = this.#translate.finish().map((chunk) => ({ data: chunk }));
    closing.push({ data: '[DONE]' });
    return closing;
  }

  usage(): SeenUsage {
    return seenUsageOfConverse(this.#translate.converseUsage);
  }

  text(): string {
    return this.#translate.text;
  }
}
