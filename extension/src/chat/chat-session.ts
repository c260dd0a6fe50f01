import { StreamInterruptedError, type ChatMessage, type TollgateClient } from '@tollgate/client';
import type { ToChatView } from '../webview/protocol.js';
import { explainError, factsOf } from './explain-error.js';
import { renderMarkdown } from './render-markdown.js';
import { recoveryAfter } from './retry-policy.js';

/** Re-rendering Markdown on every token is wasted work; the view is updated at most this often. */
const RENDER_EVERY_MS = 50;
/**
 * And at most once per this many times the last render's cost: each render is of the whole reply, so a long one
 * (a render past 50 ms) was rendered again on every chunk, the host rendering all the time and the stream slowed
 * to a chunk per render. With this, rendering takes at most a fifth of the host's time, however long the reply.
 */
const RENDER_COST_FACTOR = 4;

/**
 * The most of one reply the chat keeps and shows, in characters; past it the stream is ended (the client hangs
 * up) and the reply marked as cut. A stream that never ends (a looping local model, a faulty provider) grew the
 * reply, its Markdown render every 50 ms and the saved conversation without bound, and froze the extension host.
 * No model's reply comes near it: the catalog's largest output budget, 100,000 tokens, is some 400,000 characters.
 */
export const MAX_REPLY_CHARS = 1_000_000;

interface Queued {
  id: number;
  text: string;
  model: string;
}

/**
 * One conversation: the messages so far, the reply being streamed, messages typed meanwhile (queued,
 * shown as such, sent in order once the reply ends), and what the view is told. Knows nothing of
 * VS Code, so its behaviour is tested against a real gateway.
 */
export class ChatSession {
  readonly messages: ChatMessage[];
  #abort: AbortController | undefined;
  #nextId = 0;
  #model = '';
  #queue: Queued[] = [];
  /** Automatic retries of the current question; the user's own Retry starts the count again. */
  #automaticRetries = 0;
  /** Bumped by load(): a reply still ending from the conversation before belongs to it, not to this one. */
  #conversation = 0;

  constructor(
    private readonly client: () => Promise<TollgateClient>,
    private readonly post: (message: ToChatView) => void,
    restored: ChatMessage[] = [],
    private readonly onChange: (messages: readonly ChatMessage[]) => void = () => {},
  ) {
    this.messages = [...restored];
  }

  get busy(): boolean {
    return this.#abort !== undefined;
  }

  /** The conversation so far, for a view that was (re)opened: told to that view only (`to`). */
  replay(to: (message: ToChatView) => void = this.post): void {
    for (const message of this.messages) {
      const id = ++this.#nextId;
      const text = typeof message.content === 'string' ? message.content : '';
      if (message.role === 'user') to({ type: 'user', id, html: renderMarkdown(text) });
      else to({ type: 'assistant', id, html: renderMarkdown(text), done: true });
    }
  }

  /** A message typed while a reply streams is never dropped: it waits, visibly, for its turn. */
  async send(text: string, model: string): Promise<void> {
    if (!text.trim()) return;
    const id = ++this.#nextId;
    if (this.busy || this.#queue.length > 0) {
      this.#queue.push({ id, text, model });
      this.post({ type: 'user', id, html: renderMarkdown(text), queued: true });
      return;
    }
    // Markdown like the replies (raw HTML escaped): a fenced block from Ask About Selection shows as code.
    this.post({ type: 'user', id, html: renderMarkdown(text) });
    await this.#ask(text, model);
  }

  /**
   * Sends the conversation again: after a countdown (`automatic`) or when the user asks. A reply that
   * was cut off or stopped is replaced (Regenerate), so the model answers the question afresh.
   */
  async retry(automatic = false): Promise<void> {
    if (this.busy) return;
    if (automatic) this.#automaticRetries++;
    else this.#automaticRetries = 0;
    if (this.messages.at(-1)?.role === 'assistant') {
      this.messages.pop();
      this.#changed();
    }
    if (this.messages.at(-1)?.role !== 'user') return;
    if (await this.#reply()) await this.#drain();
  }

  /** Stops the streaming reply; what arrived stays, and queued messages then go out in order. */
  stop(): void {
    this.#abort?.abort();
  }

  /** Forgets the conversation (New Chat). */
  clear(): void {
    this.load([]);
  }

  /** Continues another conversation (Chat History): the views show it from the start. */
  load(messages: readonly ChatMessage[]): void {
    this.stop();
    this.#conversation++;
    this.messages.splice(0, this.messages.length, ...messages);
    this.#queue = [];
    this.#changed();
    this.post({ type: 'clear' });
    this.replay();
  }

  async #ask(text: string, model: string): Promise<void> {
    this.#model = model;
    this.#automaticRetries = 0;
    this.messages.push({ role: 'user', content: text });
    this.#changed();
    if (await this.#reply()) await this.#drain();
  }

  /** Queued messages go out one by one, each after the previous reply; a failure holds the rest. */
  async #drain(): Promise<void> {
    const next = this.#queue.shift();
    if (!next) return;
    this.post({ type: 'dequeued', id: next.id });
    await this.#ask(next.text, next.model);
  }

  /** Resolves true when the reply finished or was stopped, false when it failed. */
  async #reply(): Promise<boolean> {
    const id = ++this.#nextId;
    const abort = (this.#abort = new AbortController());
    const conversation = this.#conversation;
    const current = () => conversation === this.#conversation;
    this.post({ type: 'busy', busy: true });
    let text = '';
    let nextRender = 0;
    const render = (done: boolean, flags: { incomplete?: boolean; stopped?: boolean; tooLong?: number } = {}) => this.post({ type: 'assistant', id, html: renderMarkdown(text), done, ...flags });
    try {
      const client = await this.client();
      for await (const chunk of client.chatStream({ model: this.#model, messages: this.messages }, { signal: abort.signal })) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (text.length >= MAX_REPLY_CHARS) {
          // Cut where a character ends (never between an emoji's two halves); leaving the loop ends the stream.
          text = text.slice(0, /[\uD800-\uDBFF]/.test(text[MAX_REPLY_CHARS - 1]!) ? MAX_REPLY_CHARS - 1 : MAX_REPLY_CHARS);
          this.#keep(text);
          render(true, { tooLong: MAX_REPLY_CHARS });
          return true;
        }
        if (Date.now() >= nextRender) {
          const started = Date.now();
          render(false);
          nextRender = Date.now() + Math.max(RENDER_EVERY_MS, RENDER_COST_FACTOR * (Date.now() - started));
        }
      }
      this.#keep(text);
      render(true);
      return true;
    } catch (error) {
      if (abort.signal.aborted) {
        if (!current()) return false;
        this.#keep(text);
        render(true, { stopped: true });
        return true;
      }
      if (error instanceof StreamInterruptedError) {
        // Reported once, on the reply itself, with its Retry (issue 18: a notice besides said it twice).
        text = text || error.partialText;
        this.#keep(text);
        render(true, { incomplete: true });
        return false;
      }
      const explanation = explainError(factsOf(error));
      this.post({ type: 'error', id, explanation, recovery: recoveryAfter(explanation, this.#automaticRetries) });
      return false;
    } finally {
      this.#abort = undefined;
      this.post({ type: 'busy', busy: false });
    }
  }

  /** A cut-off reply stays in the conversation, so the next question has its context. */
  #keep(text: string): void {
    if (!text) return;
    this.messages.push({ role: 'assistant', content: text });
    this.#changed();
  }

  #changed(): void {
    this.onChange(this.messages);
  }
}
