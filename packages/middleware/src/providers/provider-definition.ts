import type { IncomingHttpHeaders } from 'node:http';
import type { ParamTable } from '../adapt/index.js';
import type { ProviderConfig } from './provider-settings.js';
import type { FrameDecoding } from '../upstream/index.js';
import type { Codec } from './codec.js';

/** One call to a provider before it is put on the wire: what the codec built, and where it goes. */
export interface UpstreamRequest {
  provider: ProviderConfig;
  /** The path under the provider's base URL the codec chose (`Codec.upstreamPath`). */
  path: string;
  /** The codec's request body, a JSON value. */
  body: unknown;
  /** The client's headers: a provider may forward some (Anthropic's `anthropic-beta`). */
  clientHeaders: IncomingHttpHeaders;
}

/**
 * The call as sent: origin and path as undici takes them, complete headers (credentials included) and
 * the body's exact bytes, serialized here so a provider that signs its requests (AWS SigV4) signs what
 * is sent.
 */
export interface PreparedRequest {
  origin: string;
  path: string;
  headers: Readonly<Record<string, string>>;
  body: string;
}

/** One call on a prepared provider and path: the codec's request body (a JSON value) and the client's headers. */
export type PrepareCall = (body: unknown, clientHeaders: IncomingHttpHeaders) => PreparedRequest;

/** One upstream stream event, however it was framed: `event` names it when the framing does, `data` is its JSON text. */
export interface UpstreamEvent {
  event?: string;
  data: string;
}

/**
 * Bytes → upstream events, pushed (upstream/frame-decoder.ts): the first layer of every upstream stream. Past
 * a limit it throws that limit's UpstreamFailure; `secrets` (the credentials the call carried) are redacted
 * from every event.
 */
export type StreamFraming = FrameDecoding<UpstreamEvent>;

/** A protocol a provider may speak natively; a function when it depends on the deployment (OpenAI-compatible servers). */
export type NativeCodec = Codec | ((provider: ProviderConfig) => Codec | undefined);

/**
 * `POST /v1/messages/count_tokens` answered by the provider itself (contract: Anthropic-compatible).
 * Providers without one are counted with the local tokenizer.
 */
export interface TokenCounter {
  path: string;
  /** The provider's count request for a messages-shaped client body and the route's upstream model. */
  request(body: Record<string, unknown>, model: string): unknown;
  /** The count in the provider's answer; undefined when it holds none (the tokenizer counts instead). */
  inputTokens(answer: unknown): number | undefined;
}

/**
 * Everything Tollgate knows about one kind of provider, in one place (`providers/<kind>/index.ts`):
 * how to reach it, how its errors and streams look, and how each client protocol is served on it.
 * `chat` is required: every other protocol falls back to a generic wrapper over it (messagesViaChat,
 * responsesViaChat); embeddings have no fallback.
 *
 * @example
 * export const openaiProvider: ProviderDefinition<'openai'> = { kind: 'openai', defaultBaseUrl: 'https://api.openai.com/v1', … };
 */
export interface ProviderDefinition<Kind extends string = string> {
  kind: Kind;
  defaultBaseUrl: string;
  /**
   * What every call to one configured provider on one path shares (URL parsed, fixed headers with
   * credentials), built once when the route plans are built; the function it returns makes each call as
   * sent: URL, headers with credentials (or a signature), body bytes.
   */
  prepare(provider: ProviderConfig, path: string): PrepareCall;
  /** The provider's message and code from its error body; best-effort, the body may not be JSON. */
  parseError(body: unknown, headers?: IncomingHttpHeaders): { message?: string; code?: string };
  /** How its streams are framed: SSE, or another decoder (AWS event stream). */
  framing: StreamFraming;
  /** Its parameters and ranges for chat clients: the table the chat adapter adapts with. */
  params: ParamTable;
  /** Chat clients: request, response and stream translation; the pivot every generic wrapper uses. */
  chat: Codec;
  /** Protocols it speaks natively; the absent ones go through `chat` (embeddings: not served). */
  native?: { messages?: NativeCodec; responses?: NativeCodec; embeddings?: NativeCodec };
  /** Its own token count endpoint, when it has one. */
  countTokens?: TokenCounter;
  /**
   * The chat field its deployment takes an output budget in (`RouteTarget.chatOutputLimitField`), where that
   * differs between deployments (OpenAI-compatible servers); providers whose chat adapter translates the body
   * to their own format choose it there.
   */
  chatOutputLimitField?(provider: ProviderConfig): ChatOutputLimitField;
}

/** The two names OpenAI-style chat bodies give the output budget. */
export type ChatOutputLimitField = 'max_tokens' | 'max_completion_tokens';
