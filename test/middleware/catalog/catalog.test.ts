import assert from 'node:assert/strict';
import { Catalog } from '../../../packages/middleware/src/catalog/index.js';
import { parseConfig } from '../../../packages/middleware/src/config/index.js';
import { ServiceError } from '../../../packages/middleware/src/errors/index.js';

const catalogOf = (input: unknown, env: NodeJS.ProcessEnv = {}) => new Catalog(parseConfig(input, env), env);

describe('model catalog', () => {
  it('serves the default aliases, gemini and gemini-flash included, and never raw provider ids', () => {
    const aliases = catalogOf({}).aliases().map((a) => a.alias);
    for (const alias of ['gpt-4o', 'claude-sonnet', 'claude-haiku', 'gemini', 'gemini-flash', 'text-embedding-3-small']) assert.ok(aliases.includes(alias), alias);
    assert.ok(!aliases.includes('claude-sonnet-4-5'));
  });

  it('answers model_not_configured for a default alias whose provider key is not in the environment', () => {
    assert.throws(() => catalogOf({}).resolve('claude-haiku', 'chat'), (e: unknown) => e instanceof ServiceError && e.kind === 'model_not_configured');
  });

  it('routes a default alias once its provider key is in the environment, skipping disabled fallbacks', () => {
    const model = catalogOf({}, { ANTHROPIC_API_KEY: 'sk-ant-x' }).resolve('claude-sonnet', 'chat');
    assert.deepEqual(model.routes.map((r) => r.providerName), ['anthropic']);
    assert.equal(model.routes[0]?.provider.apiKey, 'sk-ant-x');
  });

  it('lets the config override an alias, add one, and remove one', () => {
    const catalog = catalogOf({ providers: { local: { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1' } }, models: { 'gpt-4o': { routes: [{ provider: 'local', model: 'llama3' }] }, mine: { routes: [{ provider: 'local', model: 'qwen' }] }, 'o4-mini': { routes: [{ provider: 'local', model: 'x' }], disabled: true } } });
    assert.equal(catalog.resolve('gpt-4o', 'chat').routes[0]?.model, 'llama3');
    assert.equal(catalog.resolve('mine', 'chat').routes[0]?.providerName, 'local');
    assert.throws(() => catalog.resolve('o4-mini', 'chat'), (e: unknown) => e instanceof ServiceError && e.kind === 'model_not_found');
  });

  it('answers model_not_found for an embedding alias on a chat endpoint and for non-strings', () => {
    const catalog = catalogOf({}, { OPENAI_API_KEY: 'sk' });
    assert.throws(() => catalog.resolve('text-embedding-3-small', 'chat'), (e: unknown) => e instanceof ServiceError && e.status === 404);
    assert.throws(() => catalog.resolve(42, 'chat'), (e: unknown) => e instanceof ServiceError && e.status === 404);
  });
});
