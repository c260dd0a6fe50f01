import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pinnedBuild } from '../../../packages/middleware/src/sql/page-capture.js';

const wasm = readFileSync(createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm'));

// The boot self-test (page-capture-self-test.ts) runs in every SQL worker each SqlService test starts.
describe('page capture', () => {
  it('knows the installed sql.js build', () => {
    assert.equal(pinnedBuild(wasm).imports.write.length > 0, true);
  });

  it('refuses a sql.js build it has no table row for, saying how to derive one', () => {
    const other = Buffer.concat([wasm, Buffer.from([0])]);
    assert.throws(() => pinnedBuild(other), /not in sqljs-build-table\.ts.*derive-sqljs-build-table/s);
  });
});
