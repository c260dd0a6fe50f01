import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedConfig } from '../../../packages/middleware/src/cli/embedded-config.js';
import { postJson, startGateway } from '../../support/gateway.js';

describe('the embedded default of tollgate serve', () => {
  it('grants its one organization its database, so the development key runs SQL and nothing warns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-embedded-'));
    const notices: string[] = [];
    const { config, devKey } = embeddedConfig(join(dir, 'data'));
    assert.deepEqual(config.sql?.databases?.main?.access, { local: 'write' });
    const gateway = await startGateway(config, { baseDir: dir, logger: { info: (m) => notices.push(m), error: (m) => notices.push(m) } });
    try {
      const { status, body } = await postJson(`${gateway.url}/api/sql/query`, { query: 'CREATE TABLE t(x); INSERT INTO t VALUES (1); SELECT x FROM t' }, { authorization: `Bearer ${devKey}` });
      assert.equal(status, 200);
      assert.deepEqual(body.data, [[1]]);
      assert.deepEqual(notices, []);
    } finally {
      await gateway.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
