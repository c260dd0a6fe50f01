import type { ParamTable } from '../adapt/index.js';
import type { ProviderConfig } from './provider-settings.js';
import type { UsageSeen } from '../translate/index.js';
import type { ChatOutputLimitField, PrepareCall } from './provider-definition.js';

/** The client protocols Tollgate serves through the model pipeline (contract §4.2). */
export type ClientProtocol = 'chat' | 'messages' | 'responses' | 'embeddings';

/** One SSE event for the client: `event` names it (Anthropic family), `data` is JSON or `[DONE]`. */
export interface ClientEvent {
  event?: string;
  data: unknown;
}

/** Usage as a codec saw it; `reported` is false when the provider sent none (checked by translate's checkedUsage). */
export type SeenUsage = UsageSeen;

/**
 * A stream translator: upstream SSE events in, client events out. It knows whether the upstream
 * ended normally; `end()` returns the closing events or throws when the generation did not finish.
 */
export interface StreamTranslator {
  push(event: { event?: string; data: string }): ClientEvent[];
  end(): ClientEvent[];
  usage(): SeenUsage;
  /** Text sent to the client so far, for metering when the provider reports no usage. */
  text(): string;
  /**
   * The upstream sent its last event (OpenAI's `[DONE]`, Responses' `response.completed`, Anthropic's
   * `message_stop`): nothing after it belongs to the answer, so the relay need not wait for a provider that keeps
   * its connection open (model-call.ts AFTER_LAST_EVENT_MS). Undefined for formats without one (Gemini's stream ends
   * with its connection).
   */
  readonly ended?: boolean;
}

export interface RouteTarget {
  provider: ProviderConfig;
  model: string;
  alias: string;
  /** Output budget when the client gave none: what its reservation holds (README "Reservations"), sent upstream by every route. */
  defaultMaxTokens: number;
  /** Where an OpenAI-style chat body sent to this route puts an output budget (ProviderDefinition.chatOutputLimitField). */
  chatOutputLimitField?: ChatOutputLimitField;
  /** The route's calls prepared once, when its plan was built (routing/route-plans.ts); absent, each call prepares its own. */
  calls?: { json: PrepareCall; stream: PrepareCall };
}

/**
 * How one client protocol is served by one provider kind: the parameter table adaptation applies,
 * the upstream request, the response conversion and the stream translation.
 */
export interface Codec {
  params: ParamTable;
  /** The field holding the output budget in the client's body. */
  outputLimitFields: readonly string[];
  upstreamPath(target: RouteTarget, stream: boolean): string;
  request(body: Record<string, unknown>, target: RouteTarget, clientHeaders: Record<string, string | string[] | undefined>): unknown;
  /**
   * `clientBody` is the adapted client body (embeddings need `encoding_format` and the inputs); `prompt` the request's
   * own count of its prompt, for an answer that must show a count its provider does not report (Gemini embeddings).
   */
  response(upstream: unknown, target: RouteTarget, clientBody?: Record<string, unknown>, prompt?: PromptCount): { body: unknown; usage: SeenUsage };
  /**
   * `promptTokens` is the tokenizer's estimate of the client's prompt, computed once per request on first
   * call: a translated `/v1/messages` stream sends it in `message_start`, before upstream reports usage.
   */
  stream(target: RouteTarget, clientBody: Record<string, unknown>, promptTokens?: () => number): StreamTranslator;
}

/**
 * The tokenizer's count of a request's prompt, made once per request (the model call's meter): counted in turns of
 * the event loop for a large body, so a codec that needs it reads it rather than counting megabytes again at once.
 */
export interface PromptCount {
  promptTokens(): number;
}

/** Thrown by `StreamTranslator.end()` when the upstream stream ended without finishing the generation. */
export class IncompleteStream extends Error {
  override readonly name = 'IncompleteStream';
}
