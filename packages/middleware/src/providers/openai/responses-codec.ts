import { countOrNaN, openaiCachedTokens, wireFamilies, type ResponsesResponse } from '../../translate/index.js';
import type { ResponsesStreamEvent, ResponsesWireUsage } from '@tollgate/wire-families';
import { IncompleteStream, type ClientEvent, type Codec, type SeenUsage } from '../codec.js';
import { decodeEvent } from '../decode-event.js';
import { nativeRelayCodec } from '../native-relay-codec.js';
import { ProgressRelay } from '../stream-progress.js';
import { openaiResponsesEvent } from '../upstream-events.js';
import { openaiResponse } from '../upstream-answers.js';
import { openaiResponsesParams } from './params.js';

/**
 * A Responses client on OpenAI's own platform: a native relay to `{baseUrl}/responses`. The body
 * passes through with the upstream model; the response and every event carrying it name the alias.
 */
export const openaiResponsesCodec: Codec = nativeRelayCodec({
  params: openaiResponsesParams,
  outputLimitFields: ['max_output_tokens'],
  upstreamPath: '/responses',
  answer: openaiResponse,
  usage: responsesSeenUsage,
  stream: (alias) => new ResponsesRelayStream(alias),
});

/**
 * Relays Responses events, renaming the model. Only `response.completed` or `response.incomplete`
 * end a stream normally; `response.failed` and `error` are upstream failures, which Tollgate never
 * relays as events (DESIGN "Streaming": the stream ends abnormally instead).
 */
export class ResponsesRelayStream extends ProgressRelay<ResponsesStreamEvent, ResponsesWireUsage> {
  constructor(private readonly alias: string) {
    super(wireFamilies.responses, responsesSeenUsage, 'upstream responses stream ended without response.completed');
  }

  /** `response.completed` or `response.incomplete` is the stream's last event (StreamTranslator.ended). */
  get ended(): boolean {
    return this.progress.finished;
  }

  push(event: { event?: string; data: string }): ClientEvent[] {
    const data = decodeEvent(event.data, openaiResponsesEvent);
    if (data.type === 'error' || data.type === 'response.failed') throw new IncompleteStream(`upstream responses stream failed: ${event.data.slice(0, 500)}`);
    this.progress.see(data);
    // Freshly parsed: renamed in place, no copy per event.
    const response = data.response as ResponsesResponse | undefined;
    if (response) response.model = this.alias;
    return [{ event: event.event ?? data.type, data }];
  }
}

/** A usage without an output count is not a report of none: NaN rejects it, and the tokenizer bills the delivered output. */
export function responsesSeenUsage(usage: { input_tokens?: number; output_tokens?: number; input_tokens_details?: { cached_tokens?: number | null } | null } | null | undefined): SeenUsage {
  if (!usage) return { inputTokens: 0, outputTokens: 0, reported: false };
  return { inputTokens: countOrNaN(usage.input_tokens ?? 0), outputTokens: countOrNaN(usage.output_tokens), reported: true, cachedInputTokens: openaiCachedTokens(usage) };
}
