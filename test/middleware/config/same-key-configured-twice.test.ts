import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { tollgate } from '@tollgate/middleware';

const SHARED = 'tg-shared-secret-0001-0123456789abcdef';

/**
 * Keys are stored by their hash, so the same key listed twice keeps only the last entry: a key the operator gave
 * to acme silently authenticates as globex (spending globex's wallet, reaching globex's databases), and the first
 * entry's scopes, limits and budget are dropped. The config refuses two keys with one id for exactly this reason
 * ("two keys with one id would share them"); two entries with one key must be refused too, naming the field.
 */
describe('the same key configured twice', () => {
  it('is a config error naming the second entry, for two organizations', () => {
    assert.throws(
      () => tollgate({ keys: [{ key: SHARED, org: 'acme' }, { key: SHARED, org: 'globex' }], organizations: { acme: {}, globex: {} } }),
      (error: Error) => error.name === 'ConfigError' && /keys\.1/.test(error.message),
    );
  });

  it('is a config error when one entry gives the key and another its sha256', () => {
    const sha256 = createHash('sha256').update(SHARED).digest('hex');
    assert.throws(
      () => tollgate({ keys: [{ key: SHARED, org: 'acme', scopes: ['sql:read'] }, { sha256, org: 'acme', scopes: ['models', 'sql'] }], organizations: { acme: {} } }),
      (error: Error) => error.name === 'ConfigError' && /keys\.1/.test(error.message),
    );
  });
});
