import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ADMIN_KEY, BROKE_ADMIN_KEY, BROKE_KEY, TEST_KEY, chat, startConsoleStack } from './console-fixture.js';

/** With TOLLGATE_CONSOLE_SCREENSHOTS=1 the screenshots go to docs/ (the README shows them); else to a temporary directory. */
const screenshots = process.env.TOLLGATE_CONSOLE_SCREENSHOTS ? join(process.cwd(), 'docs') : mkdtempSync(join(tmpdir(), 'tollgate-console-shots-'));

describe('the operator console in headless Chromium', function () {
  this.timeout(60_000);
  let stack: Awaited<ReturnType<typeof startConsoleStack>>;
  let browser: Browser;
  let page: Page;

  before(async () => {
    mkdirSync(screenshots, { recursive: true });
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });
  after(async () => browser?.close());

  beforeEach(async () => {
    stack = await startConsoleStack();
    const context = await browser.newContext({ viewport: { width: 1200, height: 1000 } });
    page = await context.newPage();
    // Revoking asks for confirmation.
    page.on('dialog', (dialog) => void dialog.accept());
  });
  afterEach(async () => {
    await page?.context().close();
    await stack?.close();
  });

  async function logIn(key: string, path = '/console'): Promise<void> {
    await page.goto(stack.url + path);
    await page.fill('#admin-key', key);
    await page.click('#login button[type=submit]');
    await page.waitForSelector('#spend-chart');
  }

  it('logs in with an admin key and charts the spend of the traffic so far', async () => {
    for (let i = 0; i < 3; i++) assert.equal(await chat(stack.url, TEST_KEY), 200);
    const usage = await stack.gateway.gate.admin.usage('acme');
    await logIn(ADMIN_KEY);
    const today = await page.$eval('#spend-chart rect.bar:last-of-type', (bar) => ({ label: bar.getAttribute('data-label'), value: Number(bar.getAttribute('data-value')) }));
    assert.equal(today.label, new Date().toISOString().slice(5, 10));
    assert.equal(today.value, usage.costUsd);
    assert.equal(await page.$$eval('#spend-chart rect.bar', (bars) => bars.length), 30);
    assert.equal(await page.textContent('#wallet strong'), `$${usage.wallet.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })}`);
    await page.waitForSelector('#ledger tbody tr:nth-child(3)');
    assert.equal(await page.$$eval('#ledger tbody tr', (rows) => rows.length), 3);
    await page.screenshot({ path: join(screenshots, 'console-overview.png'), fullPage: true });
  });

  it('creates a key shown once, which works, and revokes it: the key then gets 401', async () => {
    await logIn(ADMIN_KEY);
    await page.uncheck('#create-key input[value=sql]');
    await page.click('#create-key button[type=submit]');
    const key = (await (await page.waitForSelector('#new-key-secret')).textContent())!;
    assert.match(key, /^tg-/);
    assert.equal(await chat(stack.url, key), 200);
    await page.screenshot({ path: join(screenshots, 'console-keys.png') });
    const keyId = (await page.getAttribute('#new-key', 'data-key-id'))!;
    assert.match(keyId, /^key_/);
    assert.equal(await page.getAttribute(`tr[data-key-id="${keyId}"]`, 'class'), '');
    await page.click(`tr[data-key-id="${keyId}"] button.danger`);
    await page.waitForSelector(`tr[data-key-id="${keyId}"].revoked`);
    assert.equal(await chat(stack.url, key), 401);
  });

  it('lands on the billing page from the 402 recovery URL and tops up: the refused request then succeeds', async () => {
    const refused = await fetch(`${stack.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${BROKE_KEY}` },
      body: JSON.stringify({ model: 'gpt', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(refused.status, 402);
    const recovery = refused.headers.get('x-service-recovery-url')!;
    assert.equal(recovery, '/console/billing');
    await logIn(BROKE_ADMIN_KEY, recovery);
    assert.equal(new URL(page.url()).pathname, '/console/billing');
    await page.fill('#top-up-amount', '5');
    await page.click('#top-up button[type=submit]');
    await page.waitForSelector('#top-up-done');
    assert.equal(await page.textContent('#top-up-done'), 'Wallet is now $5.00.');
    assert.equal(await chat(stack.url, BROKE_KEY), 200);
    await page.screenshot({ path: join(screenshots, 'console-billing.png') });
  });

  // A double-click (or Enter pressed twice) submits a form twice: each submit was sent, so the wallet was credited
  // twice, and two keys were made, one of them never shown to anyone.
  it('tops up once when the operator double-clicks Top up, and tops up again on the next click', async () => {
    await logIn(ADMIN_KEY);
    const before = (await stack.gateway.gate.admin.usage('acme')).wallet;
    await page.fill('#top-up-amount', '5');
    await page.dblclick('#top-up button[type=submit]');
    await page.waitForSelector('#top-up-done');
    assert.equal((await stack.gateway.gate.admin.usage('acme')).wallet, before + 5);
    await page.fill('#top-up-amount', '1');
    await page.click('#top-up button[type=submit]');
    await page.waitForFunction((wallet) => document.querySelector('#top-up-done')?.textContent === `Wallet is now $${wallet}.`, (before + 6).toFixed(2));
    assert.equal((await stack.gateway.gate.admin.usage('acme')).wallet, before + 6);
  });

  it('creates one key when the operator double-clicks Create key', async () => {
    await logIn(ADMIN_KEY);
    const keys = async () => (await fetch(`${stack.url}/console/api/orgs/acme`, { headers: { cookie: (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ') } }).then((r) => r.json())).keys.length as number;
    const before = await keys();
    await page.dblclick('#create-key button[type=submit]');
    await page.waitForSelector('#new-key-secret');
    assert.equal(await keys(), before + 1);
  });

  it('logs out: the page asks for a key again and the API refuses the old session', async () => {
    await logIn(ADMIN_KEY);
    await page.click('#logout');
    await page.waitForSelector('#admin-key');
    const status = await page.evaluate(async () => (await fetch('/console/api/session')).status);
    assert.equal(status, 401);
  });
});
