import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigInput, TollgateOptions } from '@tollgate/middleware';
import { startFakeAnthropic, startFakeOpenAI } from '../../fakes/index.js';
import { startGateway, TEST_KEY } from '../../support/gateway.js';
import { gatewayConfig } from '../gateway/gateway-fixture.js';

export { TEST_KEY };
export const ADMIN_KEY = 'tg-acme-admin-key-0123456789abcdef';
export const BROKE_KEY = 'tg-broke-org-key-01-0123456789abcdef';
export const BROKE_ADMIN_KEY = 'tg-broke-admin-key-0123456789abcdef';

/**
 * A gateway with the console on, a memory store with a file (so settlements land in ledger files the
 * console reads), fake upstreams, and two organizations: acme (funded) and broke (an empty wallet), each
 * with a model key and an admin key.
 */
export async function startConsoleStack(overrides: Partial<ConfigInput> = {}, options: TollgateOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-console-'));
  const openai = await startFakeOpenAI();
  const anthropic = await startFakeAnthropic();
  const config = gatewayConfig(
    { openai, anthropic },
    {
      keys: [
        { key: TEST_KEY, org: 'acme', id: 'acme-app' },
        { key: ADMIN_KEY, org: 'acme', id: 'acme-ops', scopes: ['admin'] },
        { key: BROKE_KEY, org: 'broke', id: 'broke-app' },
        { key: BROKE_ADMIN_KEY, org: 'broke', id: 'broke-ops', scopes: ['admin'] },
      ],
      organizations: { acme: { wallet: 100 }, broke: { wallet: 0 } },
      store: { kind: 'memory', file: join(dir, 'state.json') },
      console: {},
      ...overrides,
    },
  );
  const gateway = await startGateway(config, options);
  return {
    gateway,
    url: gateway.url,
    dir,
    async close() {
      await gateway.close();
      await openai.close();
      await anthropic.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A chat completion through the gateway with a key: its status (the body is not needed by these tests). */
export async function chat(url: string, key: string): Promise<number> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'gpt', max_tokens: 32, messages: [{ role: 'user', content: 'hello there' }] }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** A console client over plain HTTP, keeping its cookies as a browser would. */
export class ConsoleClient {
  readonly cookies = new Map<string, string>();
  csrfToken = '';

  constructor(readonly url: string) {}

  async request(method: 'GET' | 'POST', path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; headers: Headers; body: any }> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.url}/console${path}`, { method, headers, body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body), redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      if (/Max-Age=0/.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: response.status, headers: response.headers, body };
  }

  /** Loads the page (which sets the login token cookie), then logs in with the key. */
  async login(key: string): Promise<{ status: number; headers: Headers; body: any }> {
    await this.request('GET', '');
    const answer = await this.request('POST', '/login', { headers: { authorization: `Bearer ${key}`, 'x-csrf-token': this.cookies.get('tollgate_console_login') ?? '' } });
    if (answer.status === 200) this.csrfToken = answer.body.csrfToken;
    return answer;
  }

  /** A POST with the session's CSRF token, another one, or (null) none. */
  post(path: string, body: unknown, csrfToken: string | null = this.csrfToken) {
    return this.request('POST', path, { body, headers: csrfToken === null ? {} : { 'x-csrf-token': csrfToken } });
  }
}

/**
 * Writes a ledger file as the ledger names one started at `startsAt` (`<stamp>-0001.jsonl`, private), creating the
 * directory; returns its path.
 */
export function writeLedgerFile(ledgerDir: string, startsAt: number, text: string): string {
  mkdirSync(ledgerDir, { recursive: true, mode: 0o700 });
  const file = join(ledgerDir, `${new Date(startsAt).toISOString().replace(/[-:.]/g, '')}-0001.jsonl`);
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}
