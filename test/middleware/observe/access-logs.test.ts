import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import OpenAI from 'openai';
import { jsonLogger, parseConfig } from '@tollgate/middleware';
import { redactingLogger, secretsOf } from '../../../packages/middleware/src/observe/index.js';
import { startFakeAnthropic, startFakeOpenAI } from '../../fakes/index.js';
import { postJson, startGateway } from '../../support/gateway.js';
import { TEST_KEY, gatewayConfig } from '../gateway/gateway-fixture.js';

const BROKE_KEY = 'tg-broke-org-key-0001-0123456789abcdef';

/** A pino destination that keeps every written line. */
function capture() {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => void lines.push(...line.split('\n').filter(Boolean)) } };
}

describe('structured logs', () => {
  it('writes one JSON access line per request, with its request id, org, key id, route, tokens and cost, and no secret', async () => {
    const openaiFake = await startFakeOpenAI();
    const anthropicFake = await startFakeAnthropic();
    const out = capture();
    const config = gatewayConfig(
      { openai: openaiFake, anthropic: anthropicFake },
      { keys: [{ key: TEST_KEY, org: 'acme' }, { key: BROKE_KEY, org: 'broke' }], organizations: { acme: { wallet: 100 }, broke: { wallet: 0 } } },
    );
    const gateway = await startGateway(config, { logger: jsonLogger(out.destination) });
    try {
      const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
      const answer = await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hello' }] });
      const denied = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${BROKE_KEY}` });
      assert.equal(denied.status, 402);
      const upstreamDown = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'not-routable', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${TEST_KEY}` });
      assert.notEqual(upstreamDown.status, 200);

      const records = out.lines.map((line) => JSON.parse(line) as { msg: string; access?: Record<string, unknown> });
      const access = records.filter((record) => record.msg === 'request').map((record) => record.access!);
      assert.equal(access.length, 3);
      const ok = access.find((line) => line.requestId === answer._request_id)!;
      assert.ok(ok, 'the access line carries the id the client saw');
      assert.deepEqual(
        { endpoint: ok.endpoint, status: ok.status, reason: ok.reason, org: ok.org, alias: ok.alias, provider: ok.provider, upstreamModel: ok.upstreamModel, inputTokens: ok.inputTokens, outputTokens: ok.outputTokens },
        { endpoint: '/v1/chat/completions', status: 200, reason: 'none', org: 'acme', alias: 'gpt', provider: 'openai', upstreamModel: 'gpt-4o', inputTokens: answer.usage!.prompt_tokens, outputTokens: answer.usage!.completion_tokens },
      );
      assert.equal(typeof ok.keyId, 'string');
      assert.ok((ok.costUsd as number) > 0 && (ok.durationMs as number) >= 0 && (ok.firstByteMs as number) >= 0);
      const refusal = access.find((line) => line.requestId === denied.headers.get('x-request-id'))!;
      assert.deepEqual({ status: refusal.status, reason: refusal.reason, org: refusal.org }, { status: 402, reason: 'wallet_empty', org: 'broke' });

      for (const secret of secretsOf(parseConfig(config, {}).config)) assert.ok(!out.lines.join('\n').includes(secret), `a configured secret (${secret.slice(0, 6)}…) reached the log`);
      assert.ok(!out.lines.join('\n').includes(TEST_KEY));
    } finally {
      await gateway.close();
      await openaiFake.close();
      await anthropicFake.close();
    }
  });

  it('names the organization and key id of every authenticated request on its access line: SQL, the model list, a refused body', async () => {
    const openaiFake = await startFakeOpenAI();
    const anthropicFake = await startFakeAnthropic();
    const out = capture();
    const gateway = await startGateway(gatewayConfig({ openai: openaiFake, anthropic: anthropicFake }), { logger: jsonLogger(out.destination) });
    try {
      const auth = { authorization: `Bearer ${TEST_KEY}` };
      const answered = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'gpt', messages: [{ role: 'user', content: 'hello' }] }, auth);
      const sql = await postJson(`${gateway.url}/api/sql/query`, { query: 'SELECT 1 AS one' }, auth);
      const list = await fetch(`${gateway.url}/v1/models`, { headers: auth });
      await list.text();
      const refusedBody = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'gpt' }, auth);
      const unknownKey = await postJson(`${gateway.url}/api/sql/query`, { query: 'SELECT 1' }, { authorization: 'Bearer tg-unknown-key-0001-0123456789abcdef' });
      assert.deepEqual([answered.status, sql.status, list.status, refusedBody.status, unknownKey.status], [200, 200, 200, 422, 401]);

      const access = out.lines.map((line) => JSON.parse(line) as { msg: string; access?: Record<string, unknown> }).filter((record) => record.msg === 'request').map((record) => record.access!);
      const lineOf = (response: { headers: Headers }) => access.find((line) => line.requestId === response.headers.get('x-request-id'))!;
      const keyId = lineOf(answered).keyId;
      assert.equal(typeof keyId, 'string');
      assert.notEqual(keyId, 'none');
      for (const [name, response] of [['SQL', sql], ['model list', list], ['refused body', refusedBody]] as const) {
        const line = lineOf(response);
        assert.ok(line, `${name}: no access line`);
        assert.deepEqual({ org: line.org, keyId: line.keyId }, { org: 'acme', keyId }, name);
      }
      assert.deepEqual({ org: lineOf(unknownKey).org, keyId: lineOf(unknownKey).keyId }, { org: 'none', keyId: 'none' });
    } finally {
      await gateway.close();
      await openaiFake.close();
      await anthropicFake.close();
    }
  });

  it('scrubs every configured secret from messages and errors before any logger sees them', () => {
    const config = parseConfig(
      {
        keys: [{ key: TEST_KEY, org: 'acme' }],
        organizations: { acme: {} },
        providers: { openai: { kind: 'openai', apiKey: 'sk-provider-secret-123456', headers: { 'OpenAI-Organization': 'org-secret-987654' } } },
        metrics: { auth: { bearer: 'tg-metrics-scrape-token-0123456789abcdef' } },
      },
      {},
    ).config;
    const out = capture();
    const logger = redactingLogger(jsonLogger(out.destination), secretsOf(config));
    const secrets = [TEST_KEY, 'sk-provider-secret-123456', 'org-secret-987654', 'tg-metrics-scrape-token-0123456789abcdef'];
    logger.info(`started with ${secrets.join(' ')}`);
    logger.error('upstream said', new Error(`Incorrect API key provided: sk-provider-secret-123456`, { cause: new Error(`for ${TEST_KEY}`) }));
    logger.error('a value', { headers: { authorization: `Bearer ${TEST_KEY}` } });
    const text = out.lines.join('\n');
    assert.equal(out.lines.length, 3);
    for (const line of out.lines) JSON.parse(line);
    for (const secret of secrets) assert.ok(!text.includes(secret), secret);
    assert.match(text, /Incorrect API key provided: \[redacted\]/);
  });

  it('tollgate serve --log-format json prints only JSON lines, access lines included', async function () {
    this.timeout(30_000);
    const CLI = fileURLToPath(new URL('../../../packages/middleware/src/cli.ts', import.meta.url));
    const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const cwd = mkdtempSync(join(tmpdir(), 'tollgate-log-format-'));
    const fake = await startFakeOpenAI({ apiKey: 'sk-provider-secret-123456' });
    writeFileSync(join(cwd, 'config.json'), JSON.stringify({ defaultCatalog: false, keys: [{ key: TEST_KEY, org: 'acme' }], organizations: { acme: { wallet: 10 } }, providers: { openai: { kind: 'openai', baseUrl: fake.baseUrl, apiKey: 'sk-provider-secret-123456' } }, models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 1, output: 1 } } } }));
    const child = spawn(process.execPath, ['--conditions=tollgate-source', '--import', TSX, CLI, 'serve', '--port', '0', '--config', 'config.json', '--log-format', 'json'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout!.on('data', () => {
          const found = /listening on (http:\/\/[0-9.:]+)/.exec(output)?.[1];
          if (found) resolve(found);
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
      });
      const answer = await postJson(`${url}/v1/chat/completions`, { model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${TEST_KEY}` });
      assert.equal(answer.status, 200, answer.text);
      const requestId = answer.headers.get('x-request-id');
      // The access line is written as the answer ends, through an asynchronous stdout: wait for its bytes.
      await new Promise<void>((resolve) => {
        const check = () => (output.includes(requestId!) ? resolve() : setTimeout(check, 20));
        check();
      });
      const lines = output.split('\n').filter(Boolean);
      for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), line);
      assert.ok(lines.some((line) => JSON.parse(line).access?.requestId === requestId));
      assert.ok(!output.includes(TEST_KEY) && !output.includes('sk-provider-secret-123456'));
    } finally {
      child.kill('SIGKILL');
      await fake.close();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
