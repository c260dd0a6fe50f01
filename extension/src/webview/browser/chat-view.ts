import type { ErrorAction } from '../../chat/explain-error.js';
import type { FromChatView, ToChatView } from '../protocol.js';
import { el, vscodeApi } from './vscode-api.js';

const app = document.getElementById('app')!;
const send = (message: FromChatView) => vscodeApi.postMessage(message);

const picker = el('select', { id: 'model', 'aria-label': 'Model' });
const transcript = el('section', { class: 'transcript', 'aria-live': 'polite', 'aria-label': 'Conversation' });
const input = el('textarea', { id: 'prompt', rows: '3', placeholder: 'Ask a model… (Enter to send, Shift+Enter for a new line)', 'aria-label': 'Message' });
const sendButton = el('button', { type: 'button', id: 'send' }, 'Send');
const stopButton = el('button', { type: 'button', id: 'stop', class: 'secondary', hidden: '' }, 'Stop');
let countdown: ReturnType<typeof setInterval> | undefined;

app.replaceChildren(
  el('header', { class: 'chat-header' }, el('label', { for: 'model' }, 'Model '), picker),
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
      picker.replaceChildren(...message.models.map((model) => el('option', model === message.selected ? { value: model, selected: '' } : { value: model }, model)));
      break;
    case 'user':
      transcript.append(bubble('user', message.id, message.html));
      break;
    case 'assistant': {
      const existing = document.getElementById(`m${message.id}`);
      const next = bubble('assistant', message.id, message.html, message.done ? '' : 'streaming');
      if (message.incomplete) next.append(el('p', { class: 'badge incomplete' }, '⚠ Incomplete: the stream broke before the model finished.'));
      if (message.stopped) next.append(el('p', { class: 'badge' }, 'Stopped.'));
      if (existing) existing.replaceWith(next);
      else transcript.append(next);
      break;
    }
    case 'error':
      transcript.append(notice(message.explanation.title, message.explanation.detail, message.explanation.action));
      break;
    case 'busy':
      sendButton.toggleAttribute('disabled', message.busy);
      stopButton.toggleAttribute('hidden', !message.busy);
      if (!message.busy) input.focus();
      break;
  }
  transcript.scrollTop = transcript.scrollHeight;
});
send({ type: 'ready' });

/** Model output arrives as HTML rendered by the extension with raw HTML escaped; the CSP blocks scripts. */
function bubble(role: 'user' | 'assistant', id: number, html: string, state = ''): HTMLElement {
  const article = el('article', { id: `m${id}`, class: `message ${role} ${state}`.trim(), 'aria-label': role === 'user' ? 'You' : 'Model' });
  const content = el('div', { class: 'content' });
  content.innerHTML = html;
  article.append(content);
  return article;
}

function notice(title: string, detail: string, action?: ErrorAction): HTMLElement {
  const box = el('div', { class: 'notice', role: 'alert' }, el('strong', {}, title), el('p', {}, detail));
  if (!action) return box;
  if (action.kind === 'retry-in') {
    const status = el('p', { class: 'countdown' });
    box.append(status);
    let left = action.seconds;
    const tick = () => {
      status.textContent = `Retrying in ${left} s…`;
      if (left-- <= 0) {
        clearCountdown();
        status.textContent = 'Retrying…';
        send({ type: 'retry' });
      }
    };
    clearCountdown();
    tick();
    countdown = setInterval(tick, 1000);
  } else if (action.kind === 'wait-until') {
    box.append(el('p', { class: 'reset' }, `Resets at ${new Date(action.at).toLocaleString()}`));
  } else {
    const button = el('button', { type: 'button' }, action.label);
    button.addEventListener('click', () => send({ type: 'action', action }));
    box.append(button);
  }
  return box;
}

function clearCountdown(): void {
  if (countdown) clearInterval(countdown);
  countdown = undefined;
}
