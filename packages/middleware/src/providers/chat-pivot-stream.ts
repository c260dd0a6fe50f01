import type { ChatChunk } from '../translate/index.js';
import { IncompleteStream, type ClientEvent, type SeenUsage, type StreamTranslator } from './codec.js';

/** A client-family encoder fed chat chunks: Messages or Responses events out, closed by `finish()`. */
export interface ChatChunkEncoder {
  push(chunk: ChatChunk): readonly { type: string }[];
  /** Whether a chunk carried the finish: without it the stream failed and must end abnormally. */
  readonly finished: boolean;
  finish(): readonly { type: string }[];
}

/**
 * The stream layer of every generic wrapper: the route's chat translator (upstream events → chat chunks,
 * its usage and text) and then a client-family encoder (chat chunks → typed events). Usage and text come
 * from the chat layer, which saw what upstream sent; the encoder only renders.
 */
export class ChatPivotStream implements StreamTranslator {
  constructor(
    private readonly chat: StreamTranslator,
    private readonly encoder: ChatChunkEncoder,
  ) {}

  push(event: { event?: string; data: string }): ClientEvent[] {
    return this.#encode(this.chat.push(event), []);
  }

  end(): ClientEvent[] {
    const closing = this.#encode(this.chat.end(), []);
    // A failed generation is never closed with the family's normal end (DESIGN "Streaming", contract §6.1 rule 3).
    if (!this.encoder.finished) throw new IncompleteStream('upstream stream ended without a finish reason');
    return named(this.encoder.finish(), closing);
  }

  get ended(): boolean | undefined {
    return this.chat.ended;
  }

  usage(): SeenUsage {
    return this.chat.usage();
  }

  text(): string {
    return this.chat.text();
  }

  #encode(chunks: ClientEvent[], out: ClientEvent[]): ClientEvent[] {
    for (const chunk of chunks) if (chunk.data !== '[DONE]') named(this.encoder.push(chunk.data as ChatChunk), out);
    return out;
  }
}

function named(events: readonly { type: string }[], out: ClientEvent[]): ClientEvent[] {
  for (const event of events) out.push({ event: event.type, data: event });
  return out;
}
