import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import type { FrameDecoder, FrameDecoding } from './frame-decoder.js';
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
 * Bytes → SSE events, with the well-kept eventsource-parser. Past a limit it throws that limit's
 * UpstreamFailure. `secrets` (the credentials the call carried) are redacted from every event's name and data, so an
 * error event or a proxy that echoes them relays nothing (issue 15 item 3).
 */
class SseDecoder implements FrameDecoder {
  readonly #parser: EventSourceParser;
  readonly #text = new TextDecoder();
  #streamBytes = 0;
  /** Bytes fed since a chunk last completed an event: what the parser can be holding, give or take one chunk. */
  #eventBytes = 0;
  #emitted = false;

  constructor(
    private readonly limits: SseLimits,
    private readonly secrets: readonly string[],
    private readonly emit: (event: EventSourceMessage) => void,
  ) {
    this.#parser = createParser({ onEvent: (event) => this.#event(event) });
  }

  feed(chunk: Uint8Array): void {
    this.#streamBytes += chunk.length;
    this.#eventBytes += chunk.length;
    if (this.#streamBytes > this.limits.maxStreamBytes) throw answerTooLarge('a stream', this.limits.maxStreamBytes);
    this.#emitted = false;
    this.#parser.feed(this.#text.decode(chunk, { stream: true }));
    if (this.#emitted) this.#eventBytes = 0;
    else if (this.#eventBytes > this.limits.maxEventBytes) throw answerTooLarge('a stream event', this.limits.maxEventBytes);
  }

  end(): void {
    this.#parser.feed(this.#text.decode());
  }

  #event(event: EventSourceMessage): void {
    this.#emitted = true;
    if (this.secrets.length > 0) {
      event.data = redactSecrets(event.data, this.secrets);
      // The event's name is relayed too (Anthropic's and Responses' `event:` lines).
      if (event.event !== undefined) event.event = redactSecrets(event.event, this.secrets);
    }
    this.emit(event);
  }
}

/** The SSE framing (pull it with `pulled(sseDecoding)`). */
export const sseDecoding: FrameDecoding<EventSourceMessage> = (limits, secrets, emit) => new SseDecoder(limits, secrets, emit);

