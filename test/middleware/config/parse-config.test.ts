import assert from 'node:assert/strict';
import { ConfigError, parseConfig } from '../../../packages/middleware/src/config/index.js';
import { tollgate } from '@tollgate/middleware';

describe('configuration', () => {
  it('reads ${NAME} from the environment without touching the input object', () => {
    const input = { keys: [{ key: '${TG_KEY}', org: 'acme' }], organizations: { acme: {} } };
    const { config } = parseConfig(input, { TG_KEY: 'tg-from-environment-0123456789abcdef' });
    assert.equal(config.keys[0]?.key, 'tg-from-environment-0123456789abcdef');
    assert.equal(input.keys[0]?.key, '${TG_KEY}');
  });

  it('disables a provider whose variable is unset instead of failing', () => {
    const { disabledProviders } = parseConfig({ providers: { openai: { kind: 'openai', apiKey: '${NOT_SET_ANYWHERE}' } } }, {});
    assert.deepEqual([...disabledProviders], ['openai']);
  });

  it('keeps a disabled provider disabled when its resolved config is parsed again, and leaves the input as it was', () => {
    const input = { providers: { openai: { kind: 'openai' as const, apiKey: '${NOT_SET_ANYWHERE}' }, local: { kind: 'openai' as const, baseUrl: 'http://127.0.0.1:11434/v1' } } };
    const before = structuredClone(input);
    const first = parseConfig(input, {});
    assert.deepEqual(input, before);
    assert.equal(first.config.providers.openai?.disabled, true);
    assert.equal('apiKey' in first.config.providers.openai!, false);
    const second = parseConfig(first.config, {});
    assert.deepEqual([...second.disabledProviders], ['openai'], 'the keyless local server stays enabled, the unset one disabled');
    assert.deepEqual(second.config, first.config);
  });

  it('skips a key whose variable is unset', () => {
    const { config } = parseConfig({ keys: [{ key: '${NOT_SET_ANYWHERE}', org: 'acme' }], organizations: { acme: {} } }, {});
    assert.equal(config.keys.length, 0);
  });

  it('fails at start-up naming the field and the variable when anything else references an unset variable', () => {
    assert.throws(() => parseConfig({ recoveryUrl: '${NOT_SET_ANYWHERE}' }, {}), (error: unknown) => error instanceof ConfigError && /recoveryUrl: environment variable NOT_SET_ANYWHERE is not set/.test(error.message));
  });

  it('names every offending field of a bad config', () => {
    assert.throws(
      () => parseConfig({ sql: { maxRows: -1 }, models: { x: { routes: [] } }, organizations: { acme: { limits: { rpm: 'many' } } } }, {}),
      (error: unknown) => error instanceof ConfigError && /sql\.maxRows/.test(error.message) && /models\.x\.routes/.test(error.message) && /organizations\.acme\.limits\.rpm/.test(error.message),
    );
  });

  it('rejects a route to a provider that is not declared, and a key of an unknown organization', () => {
    assert.throws(() => parseConfig({ models: { m: { routes: [{ provider: 'nowhere', model: 'x' }] } } }, {}), /provider "nowhere" is not declared/);
    assert.throws(() => parseConfig({ keys: [{ key: 'tg-long-enough-0123456789abcdef-0', org: 'ghost' }] }, {}), /organization "ghost" is not declared/);
  });

  it('rejects two keys with one id, in one organization or two: a revocation by id would reach both', () => {
    const keys = [
      { key: 'tg-acme-key-0001-0123456789abcdef', org: 'acme', id: 'app' },
      { key: 'tg-globex-key-0001-0123456789abcdef', org: 'globex', id: 'app' },
    ];
    assert.throws(() => parseConfig({ keys, organizations: { acme: {}, globex: {} } }, {}), (error: unknown) => error instanceof ConfigError && /keys\.1\.id: "app" is already the id of keys\.0; key ids must be unique/.test(error.message));
  });

  it('rejects unknown fields so typos do not pass silently', () => {
    assert.throws(() => parseConfig({ organisations: {} }, {}), /organisations/);
  });

  it('makes tollgate() throw synchronously on a bad config', () => {
    assert.throws(() => tollgate({ sql: { timeoutMs: 0 } } as never), ConfigError);
  });
});
