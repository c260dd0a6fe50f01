import assert from 'node:assert/strict';
import { ConfigError, parseConfig } from '../../../packages/middleware/src/config/index.js';

/**
 * A key whose `${NAME}` is unset is skipped (README). The entries after it were then validated at shifted
 * positions, so a start-up error named the wrong entry: `keys.1.key: an API key must be at least 32 characters`
 * about the file's `keys[2]`, and `keys.1: the same key as keys.0` about `keys[2]` and `keys[1]`.
 */
describe('config errors about keys after one whose ${NAME} is unset', () => {
  const STRONG = 'tg-good-key-0001-0123456789abcdef';
  const message = (keys: unknown[]) => {
    try {
      parseConfig({ keys, organizations: { acme: {} } }, {});
    } catch (error) {
      assert.ok(error instanceof ConfigError, String(error));
      return error.message;
    }
    assert.fail('the config was accepted');
  };

  it('name the weak key by its position in the file', () => {
    const text = message([{ key: '${STAGING_ONLY_KEY}', org: 'acme' }, { key: STRONG, org: 'acme' }, { key: 'short', org: 'acme' }]);
    assert.match(text, /keys\.2\.key: an API key must be at least 32 characters/);
  });

  it('name both entries of a key listed twice by their positions in the file', () => {
    const text = message([{ key: '${STAGING_ONLY_KEY}', org: 'acme' }, { key: STRONG, org: 'acme' }, { key: STRONG, org: 'acme' }]);
    assert.match(text, /keys\.2: the same key as keys\.1;/);
  });

  it('name a key of an undeclared organization by its position in the file', () => {
    const text = message([{ key: '${STAGING_ONLY_KEY}', org: 'acme' }, { key: STRONG, org: 'acmee' }]);
    assert.match(text, /keys\.1\.org: organization "acmee" is not declared/);
  });
});
