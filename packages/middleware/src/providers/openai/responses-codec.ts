import { countOrNaN, openaiCachedTokens, wireFamilies, type ResponsesEvent, type ResponsesResponse } from '../../translate/index.js';
import { IncompleteStream, type ClientEvent, type Codec, type SeenUsage, type StreamTranslator } from '../codec.js';
import { decodeEvent } from '../decode-event.js';
import { StreamProgress } from '../stream-progress.js';
import { openaiResponsesEvent } from '../upstream-events.js';
import { openaiResponsesParams } from './params.js';

/**
 * A Responses client on OpenAI's own platform: a native relay to `{baseUrl}/responses`. The body
 * passes through with the upstream model; the response and every event carrying it name the alias.
 */
export const openaiResponsesCodec: Codec = {
  params: openaiResponsesParams,
  outputLimitFields: ['max_output_tokens'],
  upstreamPath: () => '/responses',
  request: (body, target) => ({ ...body, model: target.model }),
  response(upstream, target) {
    const response = { ...(upstream as ResponsesResponse), model: target.alias };
    return { body: response, usage: responsesSeenUsage(response.usage) };
  },
  stream: (target) => new ResponsesRelayStream(target.alias),
};

/**
 * Relays Responses events, renaming the model. Only `response.completed` or `response.incomplete`
 * end a stream normally; `response.failed` and `error` are upstream failures, which Tollgate never
 * relays as events (DESIGN "Streaming": the stream ends abnormally instead).
 */
export class ResponsesRelayStream implements StreamTranslator {
  readonly #progress = new StreamProgress(wireFamilies.responses, responsesSeenUsage);

  constructor(private readonly alias: string) {}

  push(event: { event?: string; data: string }): ClientEvent[] {
    const data = decodeEvent(event.data, openaiResponsesEvent);
    if (data.type === 'error' || data.type === 'response.failed') throw new IncompleteStream(`upstream responses stream failed: ${event.data.slice(0, 500)}`);
    this.#progress.see(data);
    // Freshly parsed: renamed in place, no copy per event.
    const response = data.response as ResponsesResponse | undefined;
    if (response) response.model = this.alias;
    return [{ event: event.event ?? data.type, data }];
  }

  end(): ClientEvent[] {
    if (!this.#progress.finished) throw new IncompleteStream('upstream responses stream ended without response.completed');
    return [];
  }

  usage(): SeenUsage {
    return this.#progress.usage;
  }

  text(): string {
    return this.#progress.text;
  }
}

export function responsesSeenUsage(usage: { input_tokens?: number; output_tokens?: number; input_tokens_details?: { cached_tokens?: number | null } | null } | null | undefined): SeenUsage {
  if (!usage) return { inputTokens: 0, outputTokens: 0, reported: false };
  return { inputTokens: countOrNaN(usage.input_tokens ?? 0), outputTokens: countOrNaN(usage.output_tokens ?? 0), reported: true, cachedInputTokens: openaiCachedTokens(usage) };
}
