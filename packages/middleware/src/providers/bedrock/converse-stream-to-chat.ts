import { randomUUID } from 'node:crypto';
import type { ChatChunk, ChatChunkDelta, ChatUsage } from '../../translate/index.js';
import { decodeEvent, type EventShape } from '../decode-event.js';
import type { UpstreamEvent } from '../provider-definition.js';
import { converseEventShapes, type ConverseStreamEvent } from './converse-events.js';
import type { ConverseUsage } from './converse-wire.js';
import { chatUsageOfConverse } from './converse-to-chat-response.js';
import { finishReasonFromConverse } from './map-stop-reason.js';

/**
 * One ConverseStream event checked against its type's shape (converse-events.ts); undefined for an event
 * type Tollgate does not read (Bedrock may add some). A payload that is not its type's shape ends the
 * stream as failed (decodeEvent).
 */
export function checkedConverseEvent(framed: UpstreamEvent): ConverseStreamEvent | undefined {
  const type = framed.event;
  if (type === undefined || !Object.hasOwn(converseEventShapes, type)) return undefined;
  const shape: EventShape<unknown> = converseEventShapes[type as keyof typeof converseEventShapes];
  return { type, payload: decodeEvent(framed.data, shape) } as ConverseStreamEvent;
}

/**
 * ConverseStream events → OpenAI chat chunks. Text deltas become content, a `toolUse` block start a
 * tool call (named, with its id) and its input deltas the call's arguments. `messageStop` says how the
 * turn ended, but Bedrock's stream ends with `metadata` (usage) after it: the `finish_reason` chunk is
 * held until then, followed by the usage chunk when the client asked for one (OpenAI's order), so a
 * stream cut between the two never shows a normal end (DESIGN: a failed generation is always visible).
 *
 * @example
 * const translate = new ConverseToChatStream('claude', { includeUsage: true });
 * for (const framed of events) for (const chunk of translate.push(framed)) write(chunk);
 * if (translate.finished) for (const chunk of translate.finish()) write(chunk);
 */
export class ConverseToChatStream {
  readonly #id = `chatcmpl-${randomUUID()}`;
  readonly #created = Math.floor(Date.now() / 1000);
  /** Tool-call index of each content block that is a toolUse. */
  readonly #toolCalls = new Map<number, number>();
  /** toolUse blocks that had input: one with none is a call without arguments, `{}`. */
  readonly #toolsWithInput = new Set<number>();
  #usage: ChatUsage | undefined;
  #converseUsage: ConverseUsage | undefined;
  #text = '';
  /** `messageStop`'s reason, mapped; its chunk is sent with `metadata` or by finish(). */
  #finishReason: string | undefined;
  #finishSent = false;

  constructor(
    private readonly alias: string,
    private readonly options: { includeUsage: boolean },
  ) {}

  push(framed: UpstreamEvent): ChatChunk[] {
    const event = checkedConverseEvent(framed);
    if (!event) return [];
    switch (event.type) {
      case 'messageStart':
        return [this.#chunk({ role: 'assistant', content: '' })];
      case 'contentBlockStart': {
        const toolUse = event.payload.start.toolUse;
        if (!toolUse) return [];
        const index = this.#toolCalls.size;
        this.#toolCalls.set(event.payload.contentBlockIndex, index);
        return [this.#chunk({ tool_calls: [{ index, id: toolUse.toolUseId, type: 'function', function: { name: toolUse.name, arguments: '' } }] })];
      }
      case 'contentBlockDelta':
        return this.#delta(event.payload.contentBlockIndex, event.payload.delta);
      case 'contentBlockStop': {
        const index = this.#toolCalls.get(event.payload.contentBlockIndex);
        if (index === undefined || this.#toolsWithInput.has(event.payload.contentBlockIndex)) return [];
        this.#toolsWithInput.add(event.payload.contentBlockIndex);
        this.#text += '{}';
        return [this.#chunk({ tool_calls: [{ index, function: { arguments: '{}' } }] })];
      }
      case 'messageStop':
        this.#finishReason = finishReasonFromConverse(event.payload.stopReason);
        return [];
      case 'metadata':
        if (event.payload.usage) {
          this.#converseUsage = event.payload.usage;
          this.#usage = chatUsageOfConverse(event.payload.usage);
        }
        return this.finish();
    }
  }

  /** The held `finish_reason` chunk and the usage chunk, once; nothing before `messageStop` or after they were sent. */
  finish(): ChatChunk[] {
    if (this.#finishReason === undefined || this.#finishSent) return [];
    this.#finishSent = true;
    const chunks = [this.#chunk({}, this.#finishReason)];
    if (this.options.includeUsage && this.#usage) chunks.push({ id: this.#id, object: 'chat.completion.chunk', created: this.#created, model: this.alias, choices: [], usage: this.#usage });
    return chunks;
  }

  #delta(block: number, delta: { text?: string; toolUse?: { input: string } }): ChatChunk[] {
    if (delta.text !== undefined && delta.text !== '') {
      this.#text += delta.text;
      return [this.#chunk({ content: delta.text })];
    }
    const index = this.#toolCalls.get(block);
    if (delta.toolUse && index !== undefined) {
      if (delta.toolUse.input) this.#toolsWithInput.add(block);
      this.#text += delta.toolUse.input;
      return [this.#chunk({ tool_calls: [{ index, function: { arguments: delta.toolUse.input } }] })];
    }
    return [];
  }

  /** `metadata` came after `messageStop` and the finish_reason chunk went: Bedrock's last event (StreamTranslator.ended). */
  get ended(): boolean {
    return this.#finishSent;
  }

  /** Whether Bedrock sent `messageStop`: without it the generation failed and the stream must end abnormally. */
  get finished(): boolean {
    return this.#finishReason !== undefined;
  }

  /** The usage of the `metadata` event in chat's fields; undefined until it came. */
  get usage(): ChatUsage | undefined {
    return this.#usage;
  }

  /** The `metadata` event's usage as Bedrock sent it, for metering. */
  get converseUsage(): ConverseUsage | undefined {
    return this.#converseUsage;
  }

  /** Answer text and tool arguments delivered so far, for metering a stream cut short. */
  get text(): string {
    return this.#text;
  }

  #chunk(delta: ChatChunkDelta, finishReason: string | null = null): ChatChunk {
    return { id: this.#id, object: 'chat.completion.chunk', created: this.#created, model: this.alias, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] };
  }
}
