import type { Codec, SeenUsage, StreamTranslator } from './codec.js';
import type { ParamTable } from '../adapt/index.js';
import type { EventShape } from './decode-event.js';
import { checkAnswer } from './upstream-answers.js';

/** What differs between two native relays: the provider's path, its usage's shape and its stream's events. */
export interface NativeRelay<Usage> {
  params: ParamTable;
  outputLimitFields: readonly string[];
  upstreamPath: string;
  /** The family's whole answer (upstream-answers.ts): a 2xx that is not one is not relayed. */
  answer: EventShape<unknown>;
  usage(usage: Usage | undefined): SeenUsage;
  stream(alias: string): StreamTranslator;
}

/**
 * A client protocol on a provider that speaks it natively: the body passes through with the upstream
 * model, and the answer comes back naming the alias (contract §4: the client sees the model it asked for).
 *
 * @example
 * export const anthropicMessagesCodec = nativeRelayCodec({ params, outputLimitFields: ['max_tokens'], upstreamPath: '/v1/messages', answer: anthropicMessage, usage: messagesUsage, stream: (alias) => new MessagesRelayStream(alias) });
 */
export function nativeRelayCodec<Usage>(relay: NativeRelay<Usage>): Codec {
  return {
    params: relay.params,
    outputLimitFields: relay.outputLimitFields,
    upstreamPath: () => relay.upstreamPath,
    request: (body, target) => ({ ...body, model: target.model }),
    response(upstream, target) {
      checkAnswer(upstream, relay.answer);
      const answer = { ...(upstream as { usage?: Usage }), model: target.alias };
      return { body: answer, usage: relay.usage(answer.usage) };
    },
    stream: (target) => relay.stream(target.alias),
  };
}
