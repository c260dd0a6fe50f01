import type { ErrorAction } from '../../chat/explain-error.js';
import type { Recovery } from '../../chat/retry-policy.js';
import type { FromChatView, ToChatView } from '../protocol.js';
import { el, vscodeApi } from './vscode-api.js';

const app = document.getElementById('app')!;
const send = (message: FromChatView) => vscodeApi.postMessage(message);

const picker = el('select', { id: 'model', 'aria-label': 'Model' });
const transcript = el('section', { class: 'transcript', 'aria-live': 'polite', 'aria-label': 'Conversation' });
const input = el('textarea', { id: 'prompt', rows: '3', placeholder: 'Ask a model… (Enter to send, Shift+Enter for a new line)', 'aria-label': 'Message' });
const sendButton = el('button', { type: 'button', id: 'send' }, 'Send');
const stopButton = el('button', { type: 'button', id: 'stop', class: 'secondary', hidden: '' }, 'Stop');
const newButton = el('button', { type: 'button', id: 'new-chat', class: 'secondary', title: 'Start a new conversation (this one goes to History)' }, 'New Chat');
const historyButton = el('button', { type: 'button', id: 'history', class: 'secondary', title: 'Continue an earlier conversation' }, 'History');
let countdown: ReturnType<typeof setInterval> | undefined;

app.replaceChildren(
  el('header', { class: 'chat-header' }, el('label', { for: 'model' }, 'Model '), picker, newButton, historyButton),
  transcript,
  el('footer', { class: 'composer' }, input, el('div', { class: 'buttons' }, sendButton, stopButton)),
);

function submit(): void {
  const text = input.value;
  if (!text.trim() || !picker.value) return;
  clearCountdown();
  input.value = '';
  send({ type: 'send', text, model: picker.value });
}
sendButton.addEventListener('click', submit);
stopButton.addEventListener('click', () => send({ type: 'stop' }));
historyButton.addEventListener('click', () => send({ type: 'history' }));
newButton.addEventListener('click', () => {
  clearCountdown();
  send({ type: 'new' });
});
input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey) {
    event.preventDefault();
    submit();
  }
  if (event.key === 'Escape') send({ type: 'stop' });
});

window.addEventListener('message', (event: MessageEvent<ToChatView>) => {
  const message = event.data;
  switch (message.type) {
    case 'models':
      picker.replaceChildren(
        ...message.groups.map((group) => el('optgroup', { label: group.label }, ...group.models.map((model) => el('option', model === message.selected ? { value: model, selected: '' } : { value: model }, model)))),
      );
      break;
    case 'user': {
      // Typed while a reply streams: shown at once, marked, and sent when the reply ends.
      const article = bubble('user', message.id, message.html, message.queued ? 'queued' : '');
      if (message.queued) article.append(el('p', { class: 'badge queued-note' }, 'Queued: sent when the current reply ends.'));
      transcript.append(article);
      break;
    }
    case 'dequeued': {
      const article = document.getElementById(`m${message.id}`);
      article?.classList.remove('queued');
      article?.querySelector('.queued-note')?.remove();
      break;
    }
    case 'clear':
      clearCountdown();
      transcript.replaceChildren();
      break;
    case 'prefill':
      // The question goes first, above the code: the caret waits at the start.
      input.value = message.text;
      input.focus();
      input.setSelectionRange(0, 0);
      break;
    case 'assistant': {
      const existing = document.getElementById(`m${message.id}`);
      const next = bubble('assistant', message.id, message.html, message.done ? '' : 'streaming');
      if (message.incomplete) next.append(el('p', { class: 'badge incomplete', role: 'alert' }, '⚠ Incomplete: the stream broke before the model finished. ', retryButton('Retry')));
      if (message.stopped) next.append(el('p', { class: 'badge' }, 'Stopped. ', retryButton('Regenerate')));
      if (message.tooLong) next.append(el('p', { class: 'badge incomplete', role: 'alert' }, `⚠ Stopped: the reply passed ${message.tooLong.toLocaleString()} characters, the most the chat keeps. `, retryButton('Regenerate')));
      if (message.done) addCodeActions(next);
      if (existing) existing.replaceWith(next);
      else transcript.append(next);
      break;
    }
    case 'error':
      transcript.append(notice(message.explanation.title, message.explanation.detail, message.explanation.action, message.recovery));
      break;
    case 'busy':
      // Send stays enabled: a message typed now is queued, never lost (issue 18).
      stopButton.toggleAttribute('hidden', !message.busy);
      // Back to the composer once a reply ends, but only from within this view: a view that loads or replays
      // in the background must not pull the focus from what the user is doing (it closed an open command palette).
      if (!message.busy && document.hasFocus()) input.focus();
      break;
  }
  transcript.scrollTop = transcript.scrollHeight;
});
send({ type: 'ready', load: document.body.dataset.load ?? '' });

/** Model output arrives as HTML rendered by the extension with raw HTML escaped; the CSP blocks scripts. */
function bubble(role: 'user' | 'assistant', id: number, html: string, state = ''): HTMLElement {
  const article = el('article', { id: `m${id}`, class: `message ${role} ${state}`.trim(), 'aria-label': role === 'user' ? 'You' : 'Model' });
  const content = el('div', { class: 'content' });
  content.innerHTML = html;
  article.append(content);
  return article;
}

function retryButton(label: string): HTMLButtonElement {
  const button = el('button', { type: 'button', class: 'retry' }, label);
  button.addEventListener('click', () => {
    clearCountdown();
    button.closest('.notice')?.querySelectorAll('button').forEach((b) => b.setAttribute('disabled', ''));
    send({ type: 'retry' });
  });
  return button;
}

/**
 * A failed reply: what happened, its own action (Set Provider API Key, Add credit…), and a way on —
 * a countdown with Stop while automatic retries remain, then Retry (retry-policy.ts).
 */
function notice(title: string, detail: string, action: ErrorAction | undefined, recovery: Recovery | undefined): HTMLElement {
  const box = el('div', { class: 'notice', role: 'alert' }, el('strong', {}, title), el('p', {}, detail));
  const buttons = el('div', { class: 'notice-buttons' });
  if (action?.kind === 'wait-until') box.append(el('p', { class: 'reset' }, `Resets at ${new Date(action.at).toLocaleString()}`));
  else if (action && action.kind !== 'retry-in') {
    const button = el('button', { type: 'button' }, action.label);
    button.addEventListener('click', () => send({ type: 'action', action }));
    buttons.append(button);
  }
  const manual = () => {
    buttons.append(retryButton('Retry'));
  };
  if (recovery?.kind === 'countdown') {
    const status = el('p', { class: 'countdown' });
    const stop = el('button', { type: 'button', class: 'secondary' }, 'Stop');
    box.append(status);
    buttons.append(stop);
    let left = recovery.seconds;
    const tick = () => {
      status.textContent = `Retrying in ${left} s… (automatic retry ${recovery.attempt} of ${recovery.of})`;
      if (left-- <= 0) {
        clearCountdown();
        status.textContent = `Retrying… (automatic retry ${recovery.attempt} of ${recovery.of})`;
        stop.remove();
        send({ type: 'retry', automatic: true });
      }
    };
    stop.addEventListener('click', () => {
      clearCountdown();
      status.textContent = 'Automatic retry stopped.';
      stop.remove();
      manual();
    });
    clearCountdown();
    tick();
    countdown = setInterval(tick, 1000);
  } else {
    if (recovery?.gaveUpAfter) box.append(el('p', { class: 'gave-up' }, `Still failing after ${recovery.gaveUpAfter} automatic retries.`));
    manual();
  }
  box.append(buttons);
  return box;
}

function clearCountdown(): void {
  if (countdown) clearInterval(countdown);
  countdown = undefined;
}

/** Copy and Insert on every code block of a finished reply; Run for `sql` blocks, into the results grid. */
function addCodeActions(article: HTMLElement): void {
  for (const code of article.querySelectorAll<HTMLElement>('pre > code')) {
    const language = /language-(\S+)/.exec(code.className)?.[1] ?? '';
    const text = code.textContent ?? '';
    const bar = el('div', { class: 'code-actions', role: 'toolbar', 'aria-label': 'Code block' });
    const actions: ['copy' | 'insert' | 'run', string][] = [['copy', 'Copy'], ['insert', 'Insert'], ...(language === 'sql' ? [['run', 'Run'] as ['run', string]] : [])];
    for (const [action, label] of actions) {
      const button = el('button', { type: 'button', class: 'secondary' }, label);
      button.addEventListener('click', () => send({ type: 'code', action, text, language }));
      bar.append(button);
    }
    code.parentElement!.before(bar);
  }
}
