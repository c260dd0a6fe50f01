// Builds the console's browser assets (README "Console") into dist/console-assets/: one ES module bundle and
// one stylesheet, minified, with no external dependency at run time (no CDN). Typechecked by tsc beforehand.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const app = join(root, 'src', 'console', 'app');
const out = join(root, 'dist', 'console-assets');

await build({
  entryPoints: { console: join(app, 'main.ts') },
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  outdir: out,
  logLevel: 'warning',
});
await build({ entryPoints: { console: join(app, 'console.css') }, bundle: true, minify: true, outdir: out, logLevel: 'warning' });
