import { barChart } from './bar-chart.js';
import { ConsoleApi, ConsoleError, type Overview, type Session } from './console-api.js';
import { count, h, oneAtATime, usd } from './dom.js';

/**
 * The operator's console in the browser: a login form for an admin key, then the organization's page
 * (wallet and allowance, charts of the last 30 days, keys, billing, the recent ledger). Every change is a
 * POST with the session's CSRF token; the server checks everything again.
 */
const api = new ConsoleApi();
const app = document.getElementById('app')!;

function showError(target: HTMLElement, error: unknown): void {
  target.textContent = error instanceof Error ? error.message : String(error);
  target.hidden = false;
}

function loginView(): void {
  const message = h('p', { class: 'error', role: 'alert', hidden: true });
  const input = h('input', { id: 'admin-key', name: 'admin-key', type: 'password', autocomplete: 'off', required: true, placeholder: 'admin key' });
  const submit = h('button', { type: 'submit' }, 'Log in');
  const form = h('form', { id: 'login', class: 'card narrow' }, h('h1', {}, 'Tollgate console'), h('label', { for: 'admin-key' }, 'Admin key'), input, submit, message);
  form.addEventListener(
    'submit',
    oneAtATime(submit, () =>
      api.login(input.value).then(
        (session) => {
          input.value = '';
          return organizationView(session);
        },
        (error: unknown) => showError(message, error),
      ),
    ),
  );
  app.replaceChildren(form);
}

/** What the last change answered, shown in the section it was made in. */
interface Notices {
  keys?: HTMLElement;
  billing?: HTMLElement;
}

async function organizationView(session: Session, notices: Notices = {}): Promise<void> {
  const overview = await api.overview(session.org);
  const reload = (next: Notices = {}) => organizationView(session, next).catch((error: unknown) => showError(status, error));
  const status = h('p', { class: 'error', role: 'alert', hidden: true });
  const logout = h('button', { id: 'logout', type: 'button', class: 'link', onclick: () => void api.logout().then(loginView, (error: unknown) => showError(status, error)) }, 'Log out');
  app.replaceChildren(
    h('header', {}, h('h1', {}, 'Tollgate console'), h('span', { class: 'who' }, `${session.org} · ${session.keyId}`), logout),
    status,
    balances(overview),
    charts(overview),
    keysSection(session, overview, reload, status, notices.keys),
    billingSection(session, overview, reload, status, notices.billing),
    ledgerSection(session),
  );
  // The wallet_empty recovery URL (…/billing) lands on the billing section.
  const focus = notices.keys ?? notices.billing ?? (location.pathname.endsWith('/billing') ? document.getElementById('billing') : null);
  focus?.scrollIntoView({ block: 'center' });
}

function balances({ usage }: Overview): HTMLElement {
  const tile = (id: string, label: string, value: string, note = '') => h('div', { class: 'tile', id }, h('span', { class: 'label' }, label), h('strong', {}, value), note ? h('small', {}, note) : null);
  return h(
    'section',
    { class: 'tiles' },
    tile('wallet', 'Wallet', usd(usage.wallet), usage.paymentMethod ? 'payment method on file' : 'no payment method'),
    tile('included', 'Included tokens left', count(usage.includedRemaining), usage.resetAt ? `resets ${new Date(usage.resetAt).toUTCString()}` : 'no allowance'),
    tile('spend', 'Spend (all time)', usd(usage.costUsd), `${count(usage.requests)} requests`),
    tile('tokens', 'Tokens (all time)', count(usage.inputTokens + usage.outputTokens), `${count(usage.inputTokens)} in (${count(usage.cachedInputTokens)} cached) · ${count(usage.outputTokens)} out`),
  );
}

function charts({ activity, ledgerFiles }: Overview): HTMLElement {
  const day = (label: string) => label.slice(5);
  const card = (title: string, chart: SVGSVGElement) => h('figure', { class: 'card' }, h('figcaption', {}, title), chart);
  return h(
    'section',
    { class: 'charts' },
    ledgerFiles ? null : h('p', { class: 'muted' }, 'This store keeps no ledger files, so there is no history to chart.'),
    card('Spend by day (USD, last 30 days)', barChart('spend-chart', activity.days.map((d) => ({ label: day(d.label), value: d.costUsd })), usd)),
    card('Tokens by day', barChart('tokens-chart', activity.days.map((d) => ({ label: day(d.label), value: d.inputTokens + d.outputTokens })), count)),
    card('Spend by alias', barChart('alias-chart', activity.byAlias.map((a) => ({ label: a.label, value: a.costUsd })), usd)),
    card('Spend by key', barChart('key-chart', activity.byKey.map((k) => ({ label: k.label, value: k.costUsd })), usd)),
  );
}

type Reload = (notices?: Notices) => Promise<void>;

function keysSection(session: Session, overview: Overview, reload: Reload, status: HTMLElement, notice?: HTMLElement): HTMLElement {
  const scopes = ['models', 'sql', 'sql:read'].map((scope) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'scope', value: scope, checked: scope !== 'sql:read' }), scope));
  const submit = h('button', { type: 'submit' }, 'Create key');
  const create = h('form', { id: 'create-key', class: 'inline' }, ...scopes, submit);
  create.addEventListener(
    'submit',
    oneAtATime(submit, () => {
      const chosen = [...create.querySelectorAll<HTMLInputElement>('input[name=scope]:checked')].map((input) => input.value);
      return api.createKey(session.org, chosen).then(
        ({ key, keyId }) => reload({ keys: h('div', { class: 'secret', id: 'new-key', 'data-key-id': keyId }, h('p', {}, `Key ${keyId} created. Copy it now: it is shown only once.`), h('code', { id: 'new-key-secret' }, key)) }),
        (error: unknown) => showError(status, error),
      );
    }),
  );
  const rows = overview.keys.map((key) =>
    h(
      'tr',
      { 'data-key-id': key.keyId, class: key.revoked ? 'revoked' : '' },
      h('td', {}, h('code', {}, key.keyId)),
      h('td', {}, key.scopes.join(', ')),
      h('td', {}, key.usage ? `${count(key.usage.requests)} · ${usd(key.usage.costUsd)}` : '—'),
      h('td', {}, key.revoked ? 'revoked' : revokeButton(session, key.keyId, reload, status)),
    ),
  );
  return h('section', { class: 'card', id: 'keys' }, h('h2', {}, 'API keys'), h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Key id'), h('th', {}, 'Scopes'), h('th', {}, 'Requests · spend'), h('th', {}, ''))), h('tbody', {}, ...rows)), create, notice);
}

function revokeButton(session: Session, keyId: string, reload: Reload, status: HTMLElement): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'danger' }, 'Revoke');
  button.addEventListener(
    'click',
    oneAtATime(button, async () => {
      if (!confirm(`Revoke ${keyId}? Requests with it are refused at once.`)) return;
      await api.revokeKey(session.org, keyId).then(() => reload(), (error: unknown) => showError(status, error));
    }),
  );
  return button;
}

function billingSection(session: Session, { usage }: Overview, reload: Reload, status: HTMLElement, notice?: HTMLElement): HTMLElement {
  const amount = h('input', { id: 'top-up-amount', name: 'usd', type: 'number', min: '0.000001', step: 'any', required: true, placeholder: 'USD' });
  const submit = h('button', { type: 'submit' }, 'Top up');
  const topUp = h('form', { id: 'top-up', class: 'inline' }, h('label', { for: 'top-up-amount' }, 'Add credit'), amount, submit);
  topUp.addEventListener(
    'submit',
    oneAtATime(submit, () =>
      api.topUp(session.org, Number(amount.value)).then(
        ({ wallet }) => reload({ billing: h('p', { class: 'notice', id: 'top-up-done' }, `Wallet is now ${usd(wallet)}.`) }),
        (error: unknown) => showError(status, error),
      ),
    ),
  );
  const toggle = h('button', { id: 'payment-method', type: 'button' }, usage.paymentMethod ? 'Remove payment method' : 'Record a payment method');
  toggle.addEventListener('click', oneAtATime(toggle, () => api.setPaymentMethod(session.org, !usage.paymentMethod).then(() => reload(), (error: unknown) => showError(status, error))));
  return h('section', { class: 'card', id: 'billing' }, h('h2', {}, 'Billing'), h('p', {}, `Wallet ${usd(usage.wallet)}; payment method ${usage.paymentMethod ? 'on file (included models draw on the wallet once tokens run out)' : 'not on file'}.`), topUp, toggle, notice);
}

function ledgerSection(session: Session): HTMLElement {
  const body = h('tbody', {});
  const older = h('button', { type: 'button', id: 'ledger-older' }, 'Older');
  const newer = h('button', { type: 'button', id: 'ledger-newer' }, 'Newer');
  let page = 0;
  const show = async () => {
    const result = await api.ledger(session.org, page);
    body.replaceChildren(
      ...result.rows.map((row) =>
        h('tr', {}, h('td', {}, row.at.replace('T', ' ').slice(0, 19)), h('td', {}, h('code', {}, row.keyId)), h('td', {}, row.alias), h('td', {}, row.route ?? ''), h('td', { class: 'num' }, count(row.inputTokens)), h('td', { class: 'num' }, count(row.outputTokens)), h('td', { class: 'num' }, usd(row.costUsd))),
      ),
    );
    if (result.rows.length === 0) body.append(h('tr', {}, h('td', { colspan: 7, class: 'muted' }, 'No settlements yet.')));
    older.disabled = !result.hasOlder;
    newer.disabled = page === 0;
  };
  older.addEventListener('click', () => void ((page += 1), show()));
  newer.addEventListener('click', () => void ((page = Math.max(0, page - 1)), show()));
  void show();
  const head = h('tr', {}, ...['Settled (UTC)', 'Key', 'Alias', 'Route', 'In', 'Out', 'Cost'].map((title) => h('th', {}, title)));
  return h('section', { class: 'card', id: 'ledger' }, h('h2', {}, 'Recent ledger'), h('table', {}, h('thead', {}, head), body), h('div', { class: 'inline' }, newer, older));
}

async function start(): Promise<void> {
  try {
    await organizationView(await api.session());
  } catch (error) {
    if (error instanceof ConsoleError && error.status === 401) loginView();
    else app.replaceChildren(h('p', { class: 'error' }, error instanceof Error ? error.message : String(error)));
  }
}

void start();
