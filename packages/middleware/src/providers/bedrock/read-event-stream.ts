import { EventStreamCodec } from '@smithy/core/event-streams';
import type { Message, MessageHeaders } from '@smithy/types';
import { answerTooLarge, pulled, redactSecrets, UpstreamFailure, type FrameDecoder, type FrameDecoding, type SseLimits } from '../../upstream/index.js';
import { failureOfException } from './bedrock-error.js';

/** One decoded ConverseStream event: `event` is its `:event-type` (messageStart, contentBlockDelta, …), `data` its JSON payload. */
export interface BedrockEvent {
  event: string;
  data: string;
}

/** The prelude (total length, headers length, prelude CRC) and the message CRC: 16 bytes around headers and payload. */
const MINIMUM_MESSAGE_BYTES = 16;

const utf8 = new TextDecoder();
const codec = new EventStreamCodec(
  (bytes) => utf8.decode(bytes),
  (text) => Buffer.from(text, 'utf8'),
);

/**
 * Bytes → AWS event-stream messages → ConverseStream events: the framing layer of Bedrock's streams,
 * in place of SSE (README "Bedrock"). Each message is length-prefixed and carries two CRC32s; the
 * well-kept `@smithy/core` codec checks both and parses the typed headers, this decoder only cuts the
 * byte stream into messages, bounding one message by `maxEventBytes` before it is buffered (a length
 * prefix of 4 GiB would otherwise be believed) and the stream by `maxStreamBytes`.
 *
 * A `:message-type: exception` (throttlingException, modelStreamErrorException …) or `error` message
 * throws the UpstreamFailure its type maps to; a bad CRC, a bad length or bytes left over at the end
 * (a truncated frame) throw an unreadable-stream UpstreamFailure. Either ends the relay abnormally.
 */
class EventStreamDecoder implements FrameDecoder {
  // The bytes of the message being received, joined once it is whole: a message trickled a byte at a
  // time is not copied again on every byte.
  readonly #parts: Buffer[] = [];
  #buffered = 0;
  #streamBytes = 0;
  /** The length the message being received announced; 0 until its first four bytes came. */
  #announced = 0;

  constructor(
    private readonly limits: SseLimits,
    private readonly secrets: readonly string[],
    private readonly emit: (event: BedrockEvent) => void,
  ) {}

  feed(chunk: Uint8Array): void {
    const { limits } = this;
    const parts = this.#parts;
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.#streamBytes += bytes.length;
    if (this.#streamBytes > limits.maxStreamBytes) throw answerTooLarge('a stream', limits.maxStreamBytes);
    parts.push(bytes);
    this.#buffered += bytes.length;
    for (;;) {
      if (this.#announced === 0) {
        if (this.#buffered < 4) break;
        if (parts[0]!.length < 4) parts.splice(0, parts.length, Buffer.concat(parts, this.#buffered));
        this.#announced = parts[0]!.readUInt32BE(0);
        if (this.#announced < MINIMUM_MESSAGE_BYTES) throw unreadableFrame(`a message length of ${this.#announced} bytes`);
        if (this.#announced > limits.maxEventBytes) throw answerTooLarge('a stream event', limits.maxEventBytes);
      }
      if (this.#buffered < this.#announced) break;
      const joined = parts.length === 1 ? parts[0]! : Buffer.concat(parts, this.#buffered);
      const event = eventOf(decode(joined.subarray(0, this.#announced)), this.secrets);
      const rest = joined.subarray(this.#announced);
      parts.length = 0;
      if (rest.length > 0) parts.push(rest);
      this.#buffered = rest.length;
      this.#announced = 0;
      if (event) this.emit(event);
    }
  }

  end(): void {
    // contract §6.1: a stream cut inside a message did not end normally, whatever came before.
    if (this.#buffered > 0) throw unreadableFrame(`a truncated message (${this.#buffered} bytes after the last whole one)`);
  }
}

/** The event-stream framing, pushed (the relay's). */
export const eventStreamDecoding: FrameDecoding<BedrockEvent> = (limits, secrets, emit) => new EventStreamDecoder(limits, secrets, emit);

/**
 * The event-stream framing, pulled.
 *
 * @example
 * for await (const event of readEventStream(response.body, limits, secrets)) translator.push(event);
 */
export const readEventStream = pulled(eventStreamDecoding);

function decode(frame: Buffer): Message {
  if (frame.readUInt32BE(4) > frame.length - MINIMUM_MESSAGE_BYTES) throw unreadableFrame('a headers length past the message');
  try {
    return codec.decode(frame);
  } catch (error) {
    throw unreadableFrame(error instanceof Error ? error.message : String(error), error);
  }
}

/** The event a message carries, or throws the failure an exception message reports; undefined for a message of no interest. */
function eventOf(message: Message, secrets: readonly string[]): BedrockEvent | undefined {
  const type = header(message.headers, ':message-type');
  const payload = redacted(utf8.decode(message.body), secrets);
  if (type === 'event') return { event: header(message.headers, ':event-type') ?? '', data: payload };
  // An exception's type and an error's code and message come from headers: relayed to the client, so redacted too.
  if (type === 'exception') throw failureOfException(redacted(header(message.headers, ':exception-type') ?? 'UnknownException', secrets), payload);
  if (type === 'error') throw failureOfException(redacted(header(message.headers, ':error-code') ?? 'UnknownError', secrets), JSON.stringify({ message: redacted(header(message.headers, ':error-message') ?? '', secrets) }));
  throw unreadableFrame(`a message of type ${String(type)}`);
}

function header(headers: MessageHeaders, name: string): string | undefined {
  const value = headers[name];
  return value?.type === 'string' ? value.value : undefined;
}

function redacted(text: string, secrets: readonly string[]): string {
  return secrets.length > 0 ? redactSecrets(text, secrets) : text;
}

/** Not the event-stream framing Bedrock promises: no status to relay, so like an unreadable answer. */
function unreadableFrame(what: string, cause?: unknown): UpstreamFailure {
  return new UpstreamFailure(`Upstream Bedrock stream sent ${what}`, { cause });
}
