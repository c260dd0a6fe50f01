import { readFile } from 'node:fs/promises';
import { ServiceError } from '../errors/index.js';

/**
 * The console's browser code and styles, built by `npm run build` (esbuild, scripts/build-console.mjs) into
 * `dist/console-assets/`. Resolved from this file, which sits one folder below the package root both as
 * source (`src/console/`) and as build output (`dist/console/`). Read once, on first request. Resolved then,
 * not at import: a host that bundles the middleware as CommonJS (the VS Code extension) has no
 * `import.meta.url`, and must still load the module when it never serves the console.
 */
const assetUrl = (name: string) => new URL(`../../dist/console-assets/${name}`, import.meta.url);

export const consoleAssets: Readonly<Record<string, { file: string; type: string }>> = {
  'console.js': { file: 'console.js', type: 'text/javascript; charset=utf-8' },
  'console.css': { file: 'console.css', type: 'text/css; charset=utf-8' },
};

const loaded = new Map<string, Promise<Buffer>>();

export function readConsoleAsset(name: string): Promise<Buffer> {
  let asset = loaded.get(name);
  if (!asset) {
    asset = Promise.resolve(name).then(assetUrl).then((url) => readFile(url)).catch((cause: unknown) => {
      loaded.delete(name);
      throw new ServiceError('internal', `The console's assets are not built (${name}); run "npm run build"`, { cause });
    });
    loaded.set(name, asset);
  }
  return asset;
}
