import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startFakeAnthropic, startFakeOpenAI } from '../fakes/index.js';

interface RunningExample {
  url: string;
  close(): Promise<void>;
}
type StartExample = (options: { port: number; config: unknown; baseDir: string }) => Promise<RunningExample>;

/** Each example's server.js, loaded by path (they are plain JavaScript, as a user would write them). */
const examples = ['express', 'koa', 'connect'].map((name) => ({
  name,
  load: (): Promise<{ start: StartExample }> => import(`../../examples/${name}/server.js`),
}));

const KEY = 'tg-example-key-0001-0123456789abcdef';
const BROKE_KEY = 'tg-example-broke-01-0123456789abcdef';

for (const example of examples) {
  describe(`examples/${example.name}`, () => {
    let app: RunningExample;
    let fakes: { openai: Awaited<ReturnType<typeof startFakeOpenAI>>; anthropic: Awaited<ReturnType<typeof startFakeAnthropic>> };
    let dir: string;

    before(async () => {
      fakes = { openai: await startFakeOpenAI(), anthropic: await startFakeAnthropic() };
      dir = mkdtempSync(join(tmpdir(), `tollgate-example-${example.name}-`));
      const config = {
        defaultCatalog: false,
        keys: [
          { key: KEY, org: 'acme' },
          { key: BROKE_KEY, org: 'broke' },
        ],
        organizations: { acme: { wallet: 5 }, broke: { wallet: 0 } },
        providers: {
          openai: { kind: 'openai', baseUrl: fakes.openai.baseUrl, apiKey: 'sk-fake-openai' },
          anthropic: { kind: 'anthropic', baseUrl: fakes.anthropic.baseUrl, apiKey: 'sk-fake-anthropic' },
        },
        models: {
          'gpt-4o-mini': { routes: [{ provider: 'openai', model: 'gpt-4o-mini' }], price: { input: 0.15, output: 0.6 } },
          'claude-haiku': { routes: [{ provider: 'anthropic', model: 'claude-haiku-4-5' }], price: { input: 1, output: 5 } },
        },
        store: { kind: 'memory', file: 'data/state.json' },
        sql: { databases: { main: { file: 'data/main.sqlite' } }, default: 'main' },
      };
      const { start } = await example.load();
      app = await start({ port: 0, config, baseDir: dir });
    });

    after(async () => {
      await app.close();
      await fakes.openai.close();
      await fakes.anthropic.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('runs SQL under /ai with the body parser of the framework in front', async () => {
      const response = await fetch(`${app.url}/ai/api/sql/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ query: 'CREATE TABLE IF NOT EXISTS notes(body TEXT); INSERT INTO notes VALUES (?); SELECT body FROM notes', params: ['hello'] }),
      });
      assert.equal(response.status, 200);
      const body = (await response.json()) as { type: string; column_names: string[]; data: unknown[][] };
      assert.equal(body.type, 'table');
      assert.deepEqual(body.column_names, ['body']);
      assert.deepEqual(body.data.at(-1), ['hello']);
    });

    it('answers a chat completion through the official OpenAI SDK', async () => {
      const openai = new OpenAI({ baseURL: `${app.url}/ai/v1`, apiKey: KEY, maxRetries: 0 });
      const completion = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] });
      assert.equal(completion.model, 'gpt-4o-mini');
      assert.ok(completion.choices[0]?.message.content);
    });

    it('streams a /v1/messages call through the official Anthropic SDK', async () => {
      const anthropic = new Anthropic({ baseURL: `${app.url}/ai`, apiKey: KEY, maxRetries: 0 });
      const final = await anthropic.messages.stream({ model: 'claude-haiku', max_tokens: 64, messages: [{ role: 'user', content: 'Say hello' }] }).finalMessage();
      assert.equal(final.model, 'claude-haiku');
      assert.equal(final.stop_reason, 'end_turn');
    });

    it('answers 402 wallet_empty with its reason and recovery headers', async () => {
      const response = await fetch(`${app.url}/ai/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${BROKE_KEY}` },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(response.status, 402);
      assert.equal(response.headers.get('x-service-reason'), 'wallet_empty');
      assert.equal(response.headers.get('x-service-recovery-url'), '/console/billing');
      assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'wallet_empty');
    });

    it("leaves paths Tollgate does not serve to the app's own handlers", async () => {
      const health = await fetch(`${app.url}/health`);
      assert.deepEqual(await health.json(), { status: 'ok' });
      const unknown = await fetch(`${app.url}/ai/not-a-tollgate-path`);
      assert.equal(unknown.status, 404);
      assert.deepEqual(await unknown.json(), { error: 'not found in the example app' });
    });
  });
}
