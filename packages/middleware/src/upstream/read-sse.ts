import { createParser, type EventSourceMessage } from 'eventsource-parser';

/**
 * Bytes → SSE events: the first layer of every upstream stream (STYLE convention 6).
 *
 * @example
 * for await (const event of readSseEvents(response.body)) console.log(event.event, event.data);
 */
export async function* readSseEvents(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    while (pending.length > 0) yield pending.shift()!;
  }
  parser.feed(decoder.decode());
  while (pending.length > 0) yield pending.shift()!;
}
