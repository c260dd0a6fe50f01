import type { Codec, RouteTarget, SeenUsage, StreamTranslator } from './codec.js';
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
    request: (body, target) => withOutputBudget(body, relay.outputLimitFields, target),
    response(upstream, target) {
      checkAnswer(upstream, relay.answer);
      const answer = { ...(upstream as { usage?: Usage }), model: target.alias };
      return { body: answer, usage: relay.usage(answer.usage) };
    },
    stream: (target) => relay.stream(target.alias),
  };
}

/**
 * The client's body for the provider's model, with the output budget its reservation holds (README "Reservations")
 * when the client set none, so the provider's own default (the model's maximum, for OpenAI's Responses) cannot take a
 * wallet past its overdraft. The budget's key before the spread: one hidden class for every such body (README's
 * performance rule); a `null` the client sent is then overridden in place.
 */
function withOutputBudget(body: Record<string, unknown>, fields: readonly string[], target: RouteTarget): Record<string, unknown> {
  const [field] = fields;
  if (field === undefined || fields.some((name) => typeof body[name] === 'number')) return { ...body, model: target.model };
  const upstream: Record<string, unknown> = { [field]: target.defaultMaxTokens, ...body, model: target.model };
  upstream[field] = target.defaultMaxTokens;
  return upstream;
}
