import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { StreamInterruptedError } from './errors.js';
import { endsChatStream, endsMessagesStream, endsResponsesStream } from './stream-ends.js';

/**
 * Bytes → SSE events. A socket that breaks mid-stream surfaces as StreamInterruptedError carrying the
 * text received so far (`partialText` is filled by the family readers below).
 */
export async function* readEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
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
 * raises StreamInterruptedError with the partial text (§6.1 failure mode 2).
 */
export async function* checkedStream<Event>(body: AsyncIterable<Uint8Array>, family: StreamFamily<Event>, headers: Record<string, string>): AsyncGenerator<Event> {
  let text = '';
  let ended = false;
  const interrupted = (cause?: unknown) =>
    new StreamInterruptedError({ status: 200, code: undefined, reason: undefined, headers, body: undefined, message: 'The stream ended before the generation finished' }, text, { cause });
  try {
    for await (const raw of readEvents(body)) {
      const event = family.parse(raw);
      if (event === 'done') continue;
      text += family.textOf(event);
      if (family.isNormalEnd(event)) ended = true;
      yield event;
    }
  } catch (error) {
    throw interrupted(error);
  }
  if (!ended) throw interrupted();
}

export const chatFamily: StreamFamily<{ choices?: { delta?: { content?: string | null }; finish_reason?: string | null }[] }> = {
  parse: (event) => (event.data === '[DONE]' ? 'done' : JSON.parse(event.data)),
  textOf: (chunk) => chunk.choices?.[0]?.delta?.content ?? '',
  isNormalEnd: endsChatStream,
};

export const messagesFamily: StreamFamily<{ type: string; delta?: { type?: string; text?: string } }> = {
  parse: (event) => JSON.parse(event.data),
  textOf: (event) => (event.type === 'content_block_delta' && event.delta?.type === 'text_delta' ? (event.delta.text ?? '') : ''),
  isNormalEnd: endsMessagesStream,
};

export const responsesFamily: StreamFamily<{ type: string; delta?: string }> = {
  parse: (event) => JSON.parse(event.data),
  textOf: (event) => (event.type === 'response.output_text.delta' ? (event.delta ?? '') : ''),
  isNormalEnd: endsResponsesStream,
};
