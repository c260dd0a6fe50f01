import { StreamInterruptedError, type ChatMessage, type TollgateClient } from '@tollgate/client';
import type { ToChatView } from '../webview/protocol.js';
import { explainError, factsOf } from './explain-error.js';
import { renderMarkdown, renderPlain } from './render-markdown.js';

/** Re-rendering Markdown on every token is wasted work; the view is updated at most this often. */
const RENDER_EVERY_MS = 50;

/**
 * One conversation: the messages so far, the reply being streamed, and what the view is told. Knows
 * nothing of VS Code, so its behaviour is tested against a real gateway.
 */
export class ChatSession {
  readonly messages: ChatMessage[] = [];
  #abort: AbortController | undefined;
  #nextId = 0;
  #model = '';

  constructor(
    private readonly client: () => Promise<TollgateClient>,
    private readonly post: (message: ToChatView) => void,
  ) {}

  get busy(): boolean {
    return this.#abort !== undefined;
  }

  async send(text: string, model: string): Promise<void> {
    if (this.busy || !text.trim()) return;
    this.#model = model;
    this.messages.push({ role: 'user', content: text });
    this.post({ type: 'user', id: ++this.#nextId, html: renderPlain(text) });
    await this.#reply();
  }

  /** Sends the conversation again: after a rate limit's countdown, or when the user asks to. */
  async retry(): Promise<void> {
    if (this.busy || this.messages.at(-1)?.role !== 'user') return;
    await this.#reply();
  }

  stop(): void {
    this.#abort?.abort();
  }

  async #reply(): Promise<void> {
    const id = ++this.#nextId;
    const abort = (this.#abort = new AbortController());
    this.post({ type: 'busy', busy: true });
    let text = '';
    let lastRender = 0;
    const render = (done: boolean, flags: { incomplete?: boolean; stopped?: boolean } = {}) => this.post({ type: 'assistant', id, html: renderMarkdown(text), done, ...flags });
    try {
      const client = await this.client();
      for await (const chunk of client.chatStream({ model: this.#model, messages: this.messages }, { signal: abort.signal })) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (Date.now() - lastRender >= RENDER_EVERY_MS) {
          lastRender = Date.now();
          render(false);
        }
      }
      this.messages.push({ role: 'assistant', content: text });
      render(true);
    } catch (error) {
      if (abort.signal.aborted) {
        this.#keepPartial(text);
        render(true, { stopped: true });
      } else if (error instanceof StreamInterruptedError) {
        text = text || error.partialText;
        this.#keepPartial(text);
        render(true, { incomplete: true });
        this.post({ type: 'error', id, explanation: explainError(factsOf(error)) });
      } else {
        this.post({ type: 'error', id, explanation: explainError(factsOf(error)) });
      }
    } finally {
      this.#abort = undefined;
      this.post({ type: 'busy', busy: false });
    }
  }

  /** A cut-off reply stays in the conversation, so the next question has its context. */
  #keepPartial(text: string): void {
    if (text) this.messages.push({ role: 'assistant', content: text });
  }
}
