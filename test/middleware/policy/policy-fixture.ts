import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigInput } from '@tollgate/middleware';
import { startFakeAnthropic, startFakeOpenAI } from '../../fakes/index.js';
import { startGateway, type RunningGateway } from '../../support/gateway.js';

/** A clock the test moves by hand, so windows and resets need no sleeps. */
export class TestClock {
  constructor(public time = Date.parse('2026-11-22T12:00:00Z')) {}
  now = () => this.time;
  advance(ms: number): void {
    this.time += ms;
  }
}

export const keyOf = (org: string) => `tg-policy-${org}-key-0123456789abcdef`;

/** Fake upstreams and one Tollgate with an organization per scenario. */
export async function startPolicyStack(organizations: ConfigInput['organizations'], options: { store?: ConfigInput['store']; clock?: TestClock; keys?: ConfigInput['keys'] } = {}) {
  const openai = await startFakeOpenAI();
  const anthropic = await startFakeAnthropic();
  const config: ConfigInput = {
    defaultCatalog: false,
    keys: [...Object.keys(organizations ?? {}).map((org) => ({ key: keyOf(org), org })), ...(options.keys ?? [])],
    organizations,
    providers: {
      openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-fake-openai', retryBaseMs: 1 },
      anthropic: { kind: 'anthropic', baseUrl: anthropic.baseUrl, apiKey: 'sk-fake-anthropic', retryBaseMs: 1 },
    },
    models: {
      gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 } },
      'gpt-included': { routes: [{ provider: 'openai', model: 'gpt-4o-mini' }], billing: 'included', price: { input: 2.5, output: 10 } },
      claude: { routes: [{ provider: 'anthropic', model: 'claude-haiku-4-5' }], price: { input: 1, output: 5 } },
    },
    store: options.store ?? { kind: 'memory' },
    policyTimeoutMs: 300,
  };
  // A directory of its own, for what the store keeps on disk (a Redis store's exported ledger files).
  const baseDir = mkdtempSync(join(tmpdir(), 'tollgate-policy-'));
  const gateway: RunningGateway = await startGateway(config, options.clock ? { clock: options.clock, baseDir } : { baseDir });
  return {
    openai,
    anthropic,
    gateway,
    config,
    baseDir,
    async close() {
      await gateway.close();
      await openai.close();
      await anthropic.close();
      rmSync(baseDir, { recursive: true, force: true });
    },
  };
}

/** A chat completion as raw HTTP, for assertions on status, headers and body. */
export async function chat(url: string, org: string, body: Record<string, unknown> = {}) {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${keyOf(org)}` },
    body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'one two three' }], ...body }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: safeJson(text), text };
}

/** The same through /v1/messages. */
export async function message(url: string, org: string, body: Record<string, unknown> = {}) {
  const response = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': keyOf(org) },
    body: JSON.stringify({ model: 'gpt', max_tokens: 64, messages: [{ role: 'user', content: 'one two three' }], ...body }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: safeJson(text), text };
}

function safeJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Headers of §7.2, for asserting which are present and which are not. */
export function denialHeaders(headers: Headers) {
  return {
    reason: headers.get('x-service-reason'),
    retryAfter: headers.get('retry-after'),
    resetAt: headers.get('x-service-reset-at'),
    recoveryUrl: headers.get('x-service-recovery-url'),
  };
}
