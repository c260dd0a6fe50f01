import type { SseLimits } from './read-sse.js';

/**
 * Bytes → upstream events, pushed: the first layer of every upstream stream (STYLE convention 6). `feed`
 * hands every event its chunk completed to the decoder's `emit` at once; past a limit, or on bytes that are
 * not the framing, `feed` and `end` throw that failure. Pushed, not pulled: a relayed stream then holds no
 * async iterator, no generator and no Readable between undici and the client (README "Many open streams").
 */
export interface FrameDecoder {
  feed(chunk: Uint8Array): void;
  /** The body ended: what the decoder still holds is emitted, or is a truncated frame and throws. */
  end(): void;
}

/** A framing: one decoder per stream, bounded by `limits`, redacting `secrets` from every event it emits. */
export type FrameDecoding<Event> = (limits: SseLimits, secrets: readonly string[], emit: (event: Event) => void) => FrameDecoder;

/**
 * A framing read as an async iterable, for callers that pull (tests, tools); the relay pushes instead
 * (StreamedAnswer.relay).
 *
 * @example
 * for await (const event of pulled(sseDecoding)(body, limits, secrets)) console.log(event.data);
 */
export function pulled<Event>(decoding: FrameDecoding<Event>): (body: AsyncIterable<Uint8Array | string>, limits: SseLimits, secrets?: readonly string[]) => AsyncGenerator<Event> {
  return async function* (body, limits, secrets = []) {
    const pending: Event[] = [];
    const decoder = decoding(limits, secrets, (event) => void pending.push(event));
    for await (const chunk of body) {
      decoder.feed(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
      while (pending.length > 0) yield pending.shift()!;
    }
    decoder.end();
    while (pending.length > 0) yield pending.shift()!;
  };
}
