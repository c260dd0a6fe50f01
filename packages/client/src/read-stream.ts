import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { StreamInterruptedError } from './errors.js';
import { wireFamilies, type ChatStreamChunk, type MessagesStreamEvent, type ResponsesStreamEvent } from '@tollgate/wire-families';

/**
 * Bytes → SSE events. A socket that breaks mid-stream surfaces as StreamInterruptedError carrying the
 * text received so far (`partialText` is filled by the family readers below). The parser holds an unfinished
 * event whole, so one event may take at most `maxEventBytes` (give or take a chunk): a server that sends one
 * endless line would otherwise fill the caller's memory. A comment (a keep-alive) ends a line as an event does.
 */
export async function* readEvents(body: AsyncIterable<Uint8Array>, maxEventBytes: number): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  let completed = false;
  const parser = createParser({
    onEvent: (event) => {
      completed = true;
      pending.push(event);
    },
    onComment: () => {
      completed = true;
    },
  });
  const decoder = new TextDecoder();
  /** Bytes fed since a chunk last completed an event or a comment: what the parser can be holding. */
  let unfinished = 0;
  for await (const chunk of body) {
    unfinished += chunk.length;
    completed = false;
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (completed) unfinished = 0;
    // Leaving the loop destroys the body: the connection is dropped, nothing more is read.
    else if (unfinished > maxEventBytes) throw new Error(`a stream event larger than maxAnswerBytes (${maxEventBytes} bytes)`);
    while (pending.length > 0) yield pending.shift()!;
  }
}

/** How each endpoint family says "finished", and where its text is (contract §6.1). */
export interface StreamFamily<Event> {
  parse(event: EventSourceMessage): Event | 'done';
  textOf(event: Event): string;
  isNormalEnd(event: Event): boolean;
}

/**
 * Yields a family's events and insists on its normal end: a stream that stops without it, or breaks,
 * raises StreamInterruptedError with the partial text (§6.1 failure mode 2). The partial text is kept to its first
 * `maxEventBytes` characters: a caller that reads a stream without keeping it must not have the client keep it all.
 */
export async function* checkedStream<Event>(body: AsyncIterable<Uint8Array>, family: StreamFamily<Event>, headers: Record<string, string>, maxEventBytes: number): AsyncGenerator<Event> {
  let text = '';
  let ended = false;
  const interrupted = (cause?: unknown) =>
    new StreamInterruptedError({ status: 200, code: undefined, reason: undefined, headers, body: undefined, message: `The stream ended before the generation finished${cause instanceof Error ? ` (${cause.message})` : ''}` }, text, { cause });
  try {
    for await (const raw of readEvents(body, maxEventBytes)) {
      const event = family.parse(raw);
      if (event === 'done') continue;
      if (text.length < maxEventBytes) {
        text += family.textOf(event);
        if (text.length > maxEventBytes) text = text.slice(0, maxEventBytes);
      }
      if (family.isNormalEnd(event)) ended = true;
      yield event;
    }
  } catch (error) {
    // The normal end was delivered (§6.1): a connection lost after it is no failed generation.
    if (ended) return;
    throw interrupted(error);
  }
  if (!ended) throw interrupted();
}

// The family rules are the middleware's own (@tollgate/wire-families, contract §6.1): one definition.
export const chatFamily: StreamFamily<ChatStreamChunk> = {
  parse: (event) => (event.data === '[DONE]' ? 'done' : JSON.parse(event.data)),
  textOf: wireFamilies.chat.textOf,
  isNormalEnd: wireFamilies.chat.isNormalEnd,
};

export const messagesFamily: StreamFamily<MessagesStreamEvent & { type: string }> = {
  parse: (event) => JSON.parse(event.data),
  textOf: wireFamilies.messages.textOf,
  isNormalEnd: wireFamilies.messages.isNormalEnd,
};

export const responsesFamily: StreamFamily<ResponsesStreamEvent & { type: string }> = {
  parse: (event) => JSON.parse(event.data),
  textOf: wireFamilies.responses.textOf,
  isNormalEnd: wireFamilies.responses.isNormalEnd,
};
