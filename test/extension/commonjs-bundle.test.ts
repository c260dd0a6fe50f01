import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

const middlewareEntry = new URL('../../packages/middleware/src/index.ts', import.meta.url).pathname;

// The extension ships the middleware bundled as CommonJS (extension/esbuild.mjs), where `import.meta.url` is
// undefined: a module that resolves a URL from it at import time stops the extension from activating at all.
describe('the middleware bundled as CommonJS, as the VS Code extension ships it', () => {
  it('loads and creates a gateway without import.meta.url', async function () {
    this.timeout(60_000);
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-cjs-'));
    try {
      const bundle = await build({ entryPoints: [middlewareEntry], bundle: true, platform: 'node', format: 'cjs', write: false, logLevel: 'silent' });
      const file = join(dir, 'middleware.cjs');
      writeFileSync(file, bundle.outputFiles[0]!.contents);
      const script = `const { tollgate } = require(${JSON.stringify(file)}); const gate = tollgate({ defaultCatalog: false }); process.stdout.write(typeof gate);`;
      assert.equal(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }), 'function');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
