import assert from 'node:assert/strict';
import type { TollgateClient } from '@tollgate/client';
import { ChatSession } from '../../extension/src/chat/chat-session.js';
import type { ToChatView } from '../../extension/src/webview/protocol.js';

/** A client whose stream sends one piece of text, then waits until it is aborted. */
function hangingClient(): TollgateClient {
  return {
    async *chatStream(_body: unknown, options: { signal?: AbortSignal }) {
      yield { choices: [{ delta: { content: 'half of the old answer' } }] };
      await new Promise((_, reject) => options.signal!.addEventListener('abort', () => reject(options.signal!.reason), { once: true }));
    },
  } as unknown as TollgateClient;
}

describe('chat session', () => {
  it('New Chat while a reply streams starts empty: the old reply does not land in the new conversation', async () => {
    const posted: ToChatView[] = [];
    const session = new ChatSession(async () => hangingClient(), (m) => posted.push(m));
    const sending = session.send('old question', 'gpt-4o');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(session.busy, true);
    session.clear();
    await sending;
    assert.deepEqual(session.messages, []);
  });

  it('Chat History reopen while a reply streams keeps the reopened conversation as it was', async () => {
    const session = new ChatSession(async () => hangingClient(), () => {});
    const sending = session.send('old question', 'gpt-4o');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const reopened = [{ role: 'user' as const, content: 'q' }, { role: 'assistant' as const, content: 'a' }];
    session.load(reopened);
    await sending;
    assert.deepEqual(session.messages, reopened);
  });
});
