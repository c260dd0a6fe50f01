import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface RunningExample {
  url: string;
  close(): Promise<void>;
}
type StartExample = (options: { port: number; baseDir: string }) => Promise<RunningExample>;

const KEY = 'tg-example-key-0001-0123456789abcdef';
/** Exactly the variables each example README's "Start it" command sets; the *_BASE_URL ones are optional there. */
const README_ENV: Record<string, string> = { TOLLGATE_KEY: KEY, OPENAI_API_KEY: 'sk-readme-openai', ANTHROPIC_API_KEY: 'sk-ant-readme' };
const OPTIONAL = ['OPENAI_BASE_URL', 'ANTHROPIC_BASE_URL'];

/**
 * examples/{express,koa,connect}/README.md: start with `TOLLGATE_KEY=… OPENAI_API_KEY=sk-… ANTHROPIC_API_KEY=sk-ant-…`;
 * "`OPENAI_BASE_URL`/`ANTHROPIC_BASE_URL` point a provider elsewhere". But each tollgate.config.json says
 * `"baseUrl": "${OPENAI_BASE_URL}"`, and a provider with any unset `${NAME}` is disabled: following the README, every
 * model answers `400 model_not_configured` although its API key is set.
 *
 * The example's own config file is used as shipped, in a copy whose organization has an empty wallet: an enabled
 * provider's model then answers `402 wallet_empty` before any upstream call (no traffic leaves the machine), a
 * disabled one `400 model_not_configured`.
 */
for (const name of ['express', 'koa', 'connect']) {
  describe(`examples/${name} started as its README says`, () => {
    let app: RunningExample | undefined;
    let dir: string;
    const saved: Record<string, string | undefined> = {};

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), `tollgate-example-${name}-`));
      const config = JSON.parse(readFileSync(new URL(`../../examples/${name}/tollgate.config.json`, import.meta.url), 'utf8'));
      config.organizations.acme.wallet = 0;
      writeFileSync(join(dir, 'tollgate.config.json'), JSON.stringify(config));
      for (const variable of [...Object.keys(README_ENV), ...OPTIONAL]) saved[variable] = process.env[variable];
      for (const variable of OPTIONAL) delete process.env[variable];
      Object.assign(process.env, README_ENV);
      const { start } = (await import(`../../examples/${name}/server.js`)) as { start: StartExample };
      app = await start({ port: 0, baseDir: dir });
    });

    after(async () => {
      await app?.close();
      for (const [variable, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[variable];
        else process.env[variable] = value;
      }
      rmSync(dir, { recursive: true, force: true });
    });

    it('routes gpt-4o-mini to OpenAI with only OPENAI_API_KEY set (no 400 model_not_configured)', async () => {
      const response = await fetch(`${app!.url}/ai/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] }),
      });
      const body = (await response.json()) as { error: { code: string } };
      assert.equal(body.error.code, 'wallet_empty', `answered ${response.status} ${JSON.stringify(body)}`);
      assert.equal(response.status, 402);
    });

    it('routes claude-haiku to Anthropic with only ANTHROPIC_API_KEY set (no 400 model_not_configured)', async () => {
      const response = await fetch(`${app!.url}/ai/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ model: 'claude-haiku', messages: [{ role: 'user', content: 'Say hello' }] }),
      });
      const body = (await response.json()) as { error: { code: string } };
      assert.equal(body.error.code, 'wallet_empty', `answered ${response.status} ${JSON.stringify(body)}`);
      assert.equal(response.status, 402);
    });
  });
}
