// Bundles the extension into dist/: the extension host code (CommonJS, as VS Code loads it), the SQL
// worker (ESM: it awaits sql.js at top level), the two webview scripts (browser), and the assets they
// load at run time — sql.js's wasm and the views' stylesheet. A .vsix then needs no node_modules.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const production = process.argv.includes('--production');
// tollgate-source: bundle the workspace packages from their TypeScript, so no prior tsc build is needed.
const common = { bundle: true, conditions: ['tollgate-source'], sourcemap: !production, minify: production, logLevel: 'warning', legalComments: 'none' };

mkdirSync('dist/webview', { recursive: true });
await Promise.all([
  build({
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.cjs',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    // The middleware finds its wasm and worker through import.meta only when the host passes no sqlAssets;
    // the extension always passes them.
    logOverride: { 'empty-import-meta': 'silent' },
  }),
  build({
    ...common,
    entryPoints: ['../packages/middleware/src/sql/sql-worker.ts'],
    outfile: 'dist/sql-worker.mjs',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // sql.js is CommonJS: it requires fs and path and reads __dirname, which an ES module lacks.
    banner: {
      js: [
        "import { createRequire as __tgRequire } from 'node:module';",
        "import { fileURLToPath as __tgPath } from 'node:url';",
        'const require = __tgRequire(import.meta.url);',
        'const __filename = __tgPath(import.meta.url);',
        "const __dirname = __tgPath(new URL('.', import.meta.url));",
      ].join(' '),
    },
  }),
  build({ ...common, entryPoints: { results: 'src/webview/browser/results-view.ts', chat: 'src/webview/browser/chat-view.ts' }, outdir: 'dist/webview', platform: 'browser', format: 'iife', target: 'chrome120' }),
]);
copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), 'dist/sql-wasm.wasm');
copyFileSync('media/view.css', 'dist/webview/view.css');
