import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { redactSecrets } from './redact-secrets.js';
import { answerTooLarge } from './upstream-failure.js';

/** What one upstream stream may cost (README "Relay limits"). */
export interface SseLimits {
  /** Bytes one event may take; the parser holds an unfinished event whole, so this bounds its memory. */
  maxEventBytes: number;
  /** Bytes the whole stream may take. */
  maxStreamBytes: number;
}

/**
 * Bytes → SSE events: the first layer of every upstream stream (STYLE convention 6). Past a limit it
 * throws that limit's UpstreamFailure. `secrets` (the credentials the call carried) are redacted from
 * every event's data, so an error event or a proxy that echoes them relays nothing (issue 15 item 3).
 *
 * @example
 * for await (const event of readSseEvents(response.body, { maxEventBytes, maxStreamBytes }, response.secrets)) console.log(event.event, event.data);
 */
export async function* readSseEvents(body: AsyncIterable<Uint8Array | string>, limits: SseLimits, secrets: readonly string[] = []): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent: (event) => {
      if (secrets.length > 0) event.data = redactSecrets(event.data, secrets);
      pending.push(event);
    },
  });
  const decoder = new TextDecoder();
  let streamBytes = 0;
  // Bytes fed since a chunk last completed an event: what the parser can be holding, give or take one chunk.
  let eventBytes = 0;
  for await (const chunk of body) {
    streamBytes += chunk.length;
    eventBytes += chunk.length;
    if (streamBytes > limits.maxStreamBytes) throw answerTooLarge('a stream', limits.maxStreamBytes);
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    if (pending.length > 0) eventBytes = 0;
    else if (eventBytes > limits.maxEventBytes) throw answerTooLarge('a stream event', limits.maxEventBytes);
    while (pending.length > 0) yield pending.shift()!;
  }
  parser.feed(decoder.decode());
  while (pending.length > 0) yield pending.shift()!;
}
