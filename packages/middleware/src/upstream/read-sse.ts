import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { redactSecrets } from './redact-secrets.js';

/**
 * Bytes → SSE events: the first layer of every upstream stream (STYLE convention 6). `secrets` (the
 * credentials the call carried) are redacted from every event's data, so an error event or a proxy that
 * echoes them relays nothing (issue 15 item 3).
 *
 * @example
 * for await (const event of readSseEvents(response.body, response.secrets)) console.log(event.event, event.data);
 */
export async function* readSseEvents(body: AsyncIterable<Uint8Array | string>, secrets: readonly string[] = []): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent: (event) => {
      if (secrets.length > 0) event.data = redactSecrets(event.data, secrets);
      pending.push(event);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    while (pending.length > 0) yield pending.shift()!;
  }
  parser.feed(decoder.decode());
  while (pending.length > 0) yield pending.shift()!;
}
