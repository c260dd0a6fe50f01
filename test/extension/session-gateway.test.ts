import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatSession, MAX_REPLY_CHARS } from '../../extension/src/chat/chat-session.js';
import { readSchema } from '../../extension/src/databases/schema.js';
import type { HostSettings } from '../../extension/src/host/host-config.js';
import { startSessionGateway, type SessionGateway } from '../../extension/src/host/session-gateway.js';
import type { ToChatView } from '../../extension/src/webview/protocol.js';
import { FAKE_OPENAI_KEY, startFakeOpenAI, type FakeServer } from '../fakes/index.js';
import { ScriptedServer } from '../client/scripted-server.js';
import { longestStallDuring } from '../support/event-loop-stall.js';

const dist = new URL('../../extension/dist/', import.meta.url);
const quiet = { info() {}, error() {} };

function settings(overrides: Partial<HostSettings> = {}): HostSettings {
  return {
    databases: { scratch: ':memory:', disk: 'work.sqlite' },
    providers: { fake: { kind: 'openai' } },
    models: { 'fake-chat': { routes: [{ provider: 'fake', model: 'gpt-4o' }], price: { input: 1, output: 1 } } },
    defaultCatalog: false,
    sessionBudgetUsd: 5,
    limits: {},
    sqlTimeoutMs: 2_000,
    sqlMaxRows: 1_000,
    ...overrides,
  };
}

describe('extension: the in-process gateway of an editor session', () => {
  let openai: FakeServer;
  let gateway: SessionGateway | undefined;
  let dir: string;

  before(async () => {
    assert.ok(existsSync(new URL('sql-worker.mjs', dist)), 'extension/dist is built by `npm run build`');
    openai = await startFakeOpenAI();
  });
  after(() => openai.close());
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tollgate-ext-'))));
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(overrides: Partial<HostSettings> = {}, keys: Record<string, string> = { fake: FAKE_OPENAI_KEY }) {
    const s = settings(overrides);
    s.providers = { fake: { kind: 'openai', baseUrl: openai.baseUrl } };
    gateway = await startSessionGateway(s, {
      providerKeys: keys,
      baseDir: dir,
      sqlAssets: { wasmPath: new URL('sql-wasm.wasm', dist).pathname, workerUrl: new URL('sql-worker.mjs', dist) },
      logger: quiet,
    });
    return gateway;
  }

  it('answers SQL through the bundled worker, on loopback, only with its session key', async () => {
    const { url, client } = await start();
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    await client.sql('CREATE TABLE t(x); INSERT INTO t VALUES (1), (NULL)', { db: 'disk' });
    assert.deepEqual(await client.sql('SELECT x FROM t ORDER BY x', { db: 'disk' }), { type: 'table', column_names: ['x'], column_types: [{ declared: null, storage: 'integer' }], data: [[null], [1]], context: { db: 'disk' } });
    assert.ok(existsSync(join(dir, 'work.sqlite')), 'a file database lives relative to the workspace');
    const anonymous = await fetch(`${url}/api/sql/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"SELECT 1"}' });
    assert.equal(anonymous.status, 401);
  });

  it('reads every table and view with its columns for the Databases view and completion', async () => {
    const { client } = await start();
    await client.sql('CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT); CREATE VIEW names AS SELECT name FROM people', { db: 'scratch' });
    assert.deepEqual(await readSchema(client, 'scratch'), [
      { name: 'names', kind: 'view', columns: [{ name: 'name', type: 'TEXT' }] },
      { name: 'people', kind: 'table', columns: [{ name: 'id', type: 'INTEGER' }, { name: 'name', type: 'TEXT' }] },
    ]);
    assert.deepEqual(await readSchema(client, 'disk'), []);
  });

  it('answers every statement of a request with sqlAll, in order', async () => {
    const { client } = await start();
    const answer = await client.sqlAll('CREATE TABLE t(x); INSERT INTO t VALUES (1), (2); SELECT x FROM t', { db: 'scratch' });
    assert.deepEqual(answer.results.map((result) => (result.type === 'table' ? result.data : result.affected_rows)), [0, 2, [[1], [2]]]);
  });

  it('lists the configured models and streams a chat reply into the view, rendered as HTML', async () => {
    const { client } = await start();
    assert.deepEqual(await client.models(), ['fake-chat']);
    const posted: ToChatView[] = [];
    const session = new ChatSession(async () => gateway!.chatClient, (m) => posted.push(m));
    await session.send('hello *there*', 'fake-chat');
    const final = posted.filter((m) => m.type === 'assistant').at(-1);
    assert.deepEqual(final && { done: final.done, html: final.html }, { done: true, html: '<p>Echo: hello <em>there</em></p>\n' });
    assert.deepEqual(session.messages.map((m) => m.role), ['user', 'assistant']);
    assert.equal(openai.requests.at(-1)?.headers.authorization, `Bearer ${FAKE_OPENAI_KEY}`, 'the stored provider key reaches the provider');
  });

  it('continues a conversation from history: the view is shown it afresh and the next question carries it', async () => {
    await start();
    const posted: ToChatView[] = [];
    const session = new ChatSession(async () => gateway!.chatClient, (m) => posted.push(m), [{ role: 'user', content: 'now' }]);
    session.load([{ role: 'user', content: 'earlier question' }, { role: 'assistant', content: 'earlier answer' }]);
    assert.deepEqual(posted.map((m) => m.type), ['clear', 'user', 'assistant']);
    await session.send('and then?', 'fake-chat');
    const sent = openai.requests.at(-1)!.body as { messages: { content: string }[] };
    assert.deepEqual(sent.messages.map((m) => m.content), ['earlier question', 'earlier answer', 'and then?']);
  });

  it('reports what is left of the session budget after a paid reply', async () => {
    await start();
    assert.equal(await gateway!.walletUsd(), 5);
    const session = new ChatSession(async () => gateway!.chatClient, () => {});
    await session.send('a question that costs something', 'fake-chat');
    const left = await gateway!.walletUsd();
    assert.ok(left < 5 && left > 4.99, `wallet ${left}`);
  });

  it('explains an empty session budget with the recovery action, and charges nothing', async () => {
    await start({ sessionBudgetUsd: 0 });
    const posted: ToChatView[] = [];
    const session = new ChatSession(async () => gateway!.chatClient, (m) => posted.push(m));
    const before = openai.requests.length;
    await session.send('hi', 'fake-chat');
    const error = posted.find((m) => m.type === 'error');
    assert.deepEqual(error?.type === 'error' && error.explanation.action, { kind: 'open-url', label: 'Add credit', url: 'command:tollgate.openBudgetSetting' });
    assert.equal(openai.requests.length, before);
  });

  it('turns a rate limit into a countdown, and the retry then answers', async () => {
    await start({ limits: { rpm: 1 } });
    const posted: ToChatView[] = [];
    const session = new ChatSession(async () => gateway!.chatClient, (m) => posted.push(m));
    await session.send('one', 'fake-chat');
    await session.send('two', 'fake-chat');
    const error = posted.find((m) => m.type === 'error');
    assert.equal(error?.type === 'error' && error.explanation.action?.kind, 'retry-in');
    assert.equal(error?.type === 'error' && error.recovery?.kind === 'countdown' && `${error.recovery.attempt} of ${error.recovery.of}`, '1 of 3');
    assert.deepEqual(session.messages.map((m) => m.role), ['user', 'assistant', 'user'], 'the unanswered question waits for the retry');
  });

  it('stops retrying a rate limit by itself after three automatic retries and offers Retry instead', async () => {
    await start({ limits: { rpm: 1 } });
    const posted: ToChatView[] = [];
    const session = new ChatSession(async () => gateway!.chatClient, (m) => posted.push(m));
    await session.send('one', 'fake-chat');
    await session.send('two', 'fake-chat');
    for (let i = 0; i < 3; i++) await session.retry(true);
    const recoveries = posted.flatMap((m) => (m.type === 'error' ? [m.recovery?.kind === 'countdown' ? m.recovery.attempt : m.recovery] : []));
    assert.deepEqual(recoveries, [1, 2, 3, { kind: 'manual', gaveUpAfter: 3 }]);
    const upstream = openai.requests.length;
    await session.retry(false);
    const last = posted.filter((m) => m.type === 'error').at(-1);
    assert.equal(last?.type === 'error' && last.recovery?.kind === 'countdown' && last.recovery.attempt, 1, "the user's Retry starts the count again");
    assert.equal(openai.requests.length, upstream, 'a refused retry never reached the provider');
  });

  it('queues a message sent while a reply streams, shows it at once, and sends it after the reply', async () => {
    await start();
    const posted: ToChatView[] = [];
    const session = new ChatSession(async () => gateway!.chatClient, (m) => posted.push(m));
    openai.delay(300);
    try {
      const first = session.send('first', 'fake-chat');
      await session.send('second', 'fake-chat');
      assert.ok(posted.some((m) => m.type === 'user' && m.queued && m.html.includes('second')), 'shown as queued while the first reply is pending');
      await first;
    } finally {
      openai.delay(0);
    }
    assert.deepEqual(
      session.messages.map((m) => `${m.role}: ${m.content}`),
      ['user: first', 'assistant: Echo: first', 'user: second', 'assistant: Echo: second'],
    );
    assert.ok(posted.some((m) => m.type === 'dequeued'));
  });

  it('keeps what arrived of a broken stream, marked incomplete', async () => {
    await start();
    openai.dropAfterChunks(2);
    const posted: ToChatView[] = [];
    const session = new ChatSession(async () => gateway!.chatClient, (m) => posted.push(m));
    try {
      await session.send('a longer question with several words', 'fake-chat');
    } finally {
      openai.dropAfterChunks(undefined);
    }
    const final = posted.filter((m) => m.type === 'assistant').at(-1);
    assert.equal(final?.type === 'assistant' && final.incomplete, true);
    assert.equal(posted.find((m) => m.type === 'error'), undefined, 'reported once, on the reply, not again as a notice');
    await session.retry();
    const again = posted.filter((m) => m.type === 'assistant').at(-1);
    assert.equal(again?.type === 'assistant' && again.html, '<p>Echo: a longer question with several words</p>\n');
    assert.deepEqual(session.messages.map((m) => m.role), ['user', 'assistant'], 'Retry replaced the cut-off reply');
  });

  it('streams a reply of 882,000 characters in 198,000 chunks to its end in seconds: renders thin out as the reply grows', async function () {
    this.timeout(60_000);
    await start();
    const long = 'All work and no play makes **Jack** a dull boy. '.repeat(18_000);
    // Past the output budget the gateway sends (the alias's, 4,096 tokens): this is about rendering, not budgets.
    openai.reply({ text: long, ignoresBudget: true });
    const posted: ToChatView[] = [];
    const session = new ChatSession(async () => gateway!.chatClient, (m) => posted.push(m));
    const started = Date.now();
    try {
      await session.send('a long story please', 'fake-chat');
    } finally {
      openai.reply({});
    }
    assert.ok(Date.now() - started < 40_000, `took ${Date.now() - started} ms`);
    assert.equal(session.messages.at(-1)?.content, long);
    const final = posted.filter((m) => m.type === 'assistant').at(-1);
    assert.ok(final?.type === 'assistant' && final.done && !final.tooLong);
  });

  it('stops a reply that never ends at MAX_REPLY_CHARS, says so, keeps what arrived, and frees the composer; the host never freezes', async function () {
    this.timeout(60_000);
    await start();
    openai.reply({ text: 'All work and no play makes **Jack** a dull boy. ', endless: true });
    const posted: ToChatView[] = [];
    const session = new ChatSession(async () => gateway!.chatClient, (m) => posted.push(m));
    try {
      const { stallMs } = await longestStallDuring(() => session.send('tell me everything', 'fake-chat'));
      assert.ok(stallMs < 5_000, `the extension host stood still for ${stallMs} ms`);
    } finally {
      openai.reply({});
    }
    const final = posted.filter((m) => m.type === 'assistant').at(-1);
    assert.ok(final?.type === 'assistant' && final.done && final.tooLong === MAX_REPLY_CHARS, JSON.stringify(final && { ...final, html: final.html.length }));
    assert.deepEqual(posted.at(-1), { type: 'busy', busy: false }, 'the composer is free again');
    const kept = session.messages.at(-1);
    assert.equal(kept?.role, 'assistant');
    assert.ok(typeof kept.content === 'string' && kept.content.length === MAX_REPLY_CHARS && kept.content.startsWith('All work'), `kept ${String(kept.content).length} characters`);
    assert.equal(posted.find((m) => m.type === 'error'), undefined);
  });

  it('refuses to start on workspace settings that name an environment variable, and sends the variable nowhere', async () => {
    // A cloned repository's .vscode/settings.json is data: `${NAME}` in it must not reach the user's environment.
    const evil = await new ScriptedServer().start();
    try {
      const hostile = settings({
        providers: { x: { kind: 'openai', baseUrl: `${evil.url}/v1`, headers: { 'x-loot': '${TOLLGATE_TEST_SECRET}' } } },
        models: { 'fake-chat': { routes: [{ provider: 'x', model: 'gpt-4o' }], price: { input: 1, output: 1 } } },
      });
      const started = startSessionGateway(hostile, {
        providerKeys: {},
        baseDir: dir,
        sqlAssets: { wasmPath: new URL('sql-wasm.wasm', dist).pathname, workerUrl: new URL('sql-worker.mjs', dist) },
        logger: quiet,
        env: { ...process.env, TOLLGATE_TEST_SECRET: 'aws-secret-of-the-user' },
      });
      const outcome = await started.then(
        async (running) => {
          gateway = running;
          await new ChatSession(async () => running.chatClient, () => {}).send('hi', 'fake-chat');
          return 'started';
        },
        (error: Error) => error,
      );
      assert.deepEqual(evil.requests.map((r) => r.headers['x-loot']), [], 'the secret went to the server the settings named');
      assert.ok(outcome instanceof Error, `the gateway ${String(outcome)}`);
      assert.match(outcome.message, /tollgate\.providers\.x\.headers\.x-loot/);
      assert.match(outcome.message, /\$\{TOLLGATE_TEST_SECRET\}/);
      assert.doesNotMatch(outcome.message, /aws-secret-of-the-user/);
    } finally {
      await evil.close();
    }
  });

  it('sends a stored key only to the origin it was stored for, not to where a workspace points its provider', async () => {
    const evil = await new ScriptedServer().start();
    try {
      const origin = new URL(evil.url).origin;
      const hostile = settings({ providers: { openai: { kind: 'openai', baseUrl: `${evil.url}/v1` } }, models: { 'fake-chat': { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 1, output: 1 } } } });
      const cases = [
        ['a key stored for OpenAI', { key: 'sk-user-real-1', origin: 'https://api.openai.com' }, false],
        ['a key stored before keys named their origin (a built-in provider\'s: its own API)', 'sk-user-real-2', false],
        ['a key stored for that server', { key: 'sk-for-this-server', origin }, true],
      ] as const;
      for (const [name, stored, sent] of cases) {
        const running = await startSessionGateway(hostile, { providerKeys: { openai: stored }, baseDir: dir, sqlAssets: { wasmPath: new URL('sql-wasm.wasm', dist).pathname, workerUrl: new URL('sql-worker.mjs', dist) }, logger: quiet });
        try {
          evil.requests.length = 0;
          evil.respond({ status: 500, body: { error: { message: 'no' } } });
          await new ChatSession(async () => running.chatClient, () => {}).send('hi', 'fake-chat');
          const key = typeof stored === 'string' ? stored : stored.key;
          assert.equal(evil.requests.some((r) => JSON.stringify(r.headers).includes(key)), sent, name);
          assert.deepEqual(running.withheldKeys, sent ? [] : ['openai'], name);
        } finally {
          await running.close();
        }
      }
    } finally {
      await evil.close();
    }
  });

  it("explains a provider refusing the request's missing API key with the Set Provider API Key command", async () => {
    await start({}, {});
    const posted: ToChatView[] = [];
    const session = new ChatSession(async () => gateway!.chatClient, (m) => posted.push(m));
    await session.send('hi', 'fake-chat');
    const error = posted.find((m) => m.type === 'error');
    assert.ok(error?.type === 'error');
    assert.equal(error.explanation.title, 'The provider refused the API key');
    assert.deepEqual(error.explanation.action, { kind: 'command', label: 'Set Provider API Key', command: 'tollgate.setProviderApiKey' });
  });
});
