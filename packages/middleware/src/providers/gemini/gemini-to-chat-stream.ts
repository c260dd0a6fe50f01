import type { ChatChunk, ChatChunkDelta, ChatUsage } from '../../translate/index.js';
import type { GeminiFunctionCall, GeminiResponse } from './gemini-wire.js';
import { PartialFunctionCall } from './partial-function-call.js';
import { answerText, functionCalls, geminiChatUsage, toolCallId } from './gemini-to-chat-response.js';
import { finishReasonFromGemini } from './map-finish-reason.js';

/**
 * Gemini SSE payloads (each a whole `GenerateContentResponse`) → OpenAI chat chunks. A candidate's
 * `finish_reason` chunk is emitted only when Gemini sent its `finishReason`, so a stream that breaks
 * never looks finished — DESIGN "does better" than contract §6.1 rule 4 for `gemini`/`gemini-flash`.
 *
 * @example
 * const translate = new GeminiToChatStream('gemini', { includeUsage: true });
 * for (const payload of events) for (const chunk of translate.push(JSON.parse(payload))) write(chunk);
 * translate.finished // true only after every candidate sent a finishReason
 */
export class GeminiToChatStream {
  #id = 'chatcmpl-gemini';
  readonly #created = Math.floor(Date.now() / 1000);
  readonly #started = new Set<number>();
  readonly #finished = new Set<number>();
  readonly #toolCalls = new Map<number, number>();
  readonly #pending = new Map<number, { index: number; call: PartialFunctionCall }>();
  #usage: ChatUsage | undefined;
  #text = '';
  #usageSent = false;

  constructor(
    private readonly alias: string,
    private readonly options: { includeUsage: boolean },
  ) {}

  push(response: GeminiResponse): ChatChunk[] {
    if (response.responseId) this.#id = `chatcmpl-${response.responseId}`;
    if (response.usageMetadata) this.#usage = geminiChatUsage(response.usageMetadata);
    const chunks: ChatChunk[] = [];
    const candidates = response.candidates ?? [];
    if (candidates.length === 0 && response.promptFeedback?.blockReason) {
      chunks.push(this.#chunk(0, { role: 'assistant', content: '' }), this.#chunk(0, {}, 'content_filter'));
      this.#started.add(0);
      this.#finished.add(0);
    }
    candidates.forEach((candidate, i) => {
      const index = candidate.index ?? i;
      const parts = candidate.content?.parts ?? [];
      const delta: ChatChunkDelta = {};
      if (!this.#started.has(index)) {
        this.#started.add(index);
        delta.role = 'assistant';
      }
      const text = answerText(parts);
      if (text || delta.role) delta.content = text;
      this.#text += text;
      const calls = this.#toolCallDeltas(index, functionCalls(parts));
      if (calls.length > 0) delta.tool_calls = calls;
      if (Object.keys(delta).length > 0) chunks.push(this.#chunk(index, delta));
      if (candidate.finishReason) {
        this.#finished.add(index);
        chunks.push(this.#chunk(index, {}, finishReasonFromGemini(candidate.finishReason, this.#toolCalls.has(index))));
      }
    });
    if (this.finished && this.options.includeUsage && this.#usage && !this.#usageSent) {
      this.#usageSent = true;
      chunks.push({ ...this.#chunk(0, {}), choices: [], usage: { ...this.#usage } });
    }
    return chunks;
  }

  /**
   * Chat tool-call deltas for one candidate's calls: a whole call at once, or — for a call Gemini
   * streams piecewise — its name when it opens and its assembled arguments when it closes.
   */
  #toolCallDeltas(candidate: number, calls: (GeminiFunctionCall & { thoughtSignature?: string })[]): NonNullable<ChatChunkDelta['tool_calls']> {
    const deltas: NonNullable<ChatChunkDelta['tool_calls']> = [];
    for (const call of calls) {
      const pending = this.#pending.get(candidate);
      if (pending && !call.name) {
        pending.call.add(call.partialArgs ?? []);
        if (call.willContinue) continue;
        this.#pending.delete(candidate);
        const args = pending.call.arguments();
        this.#text += args;
        deltas.push({ index: pending.index, function: { arguments: args } });
        continue;
      }
      const index = this.#toolCalls.get(candidate) ?? 0;
      this.#toolCalls.set(candidate, index + 1);
      const id = call.id ?? toolCallId(candidate, index, call.thoughtSignature);
      if (call.willContinue) {
        const partial = new PartialFunctionCall();
        partial.add(call.partialArgs ?? []);
        this.#pending.set(candidate, { index, call: partial });
        deltas.push({ index, id, type: 'function', function: { name: call.name ?? '', arguments: '' } });
        continue;
      }
      const args = JSON.stringify(call.args ?? {});
      this.#text += args;
      deltas.push({ index, id, type: 'function', function: { name: call.name ?? '', arguments: args } });
    }
    return deltas;
  }

  /** Every candidate that started also finished (a finished one has always started: no copy of the set per event). */
  get finished(): boolean {
    return this.#started.size > 0 && this.#finished.size === this.#started.size;
  }

  /** Usage from the latest `usageMetadata`, undefined when Gemini sent none. */
  get usage(): ChatUsage | undefined {
    return this.#usage;
  }

  /** Answer text and call arguments delivered so far, for metering a stream cut short. */
  get text(): string {
    return this.#text;
  }

  #chunk(index: number, delta: ChatChunkDelta, finishReason: string | null = null): ChatChunk {
    return { id: this.#id, object: 'chat.completion.chunk', created: this.#created, model: this.alias, choices: [{ index, delta, finish_reason: finishReason, logprobs: null }] };
  }
}
