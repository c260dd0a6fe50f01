import { randomBytes } from 'node:crypto';

/**
 * The page around a webview script: a Content-Security-Policy that allows only this extension's own
 * script (by nonce) and styles, and nothing remote — no network, no inline handlers, no frames.
 */
export function webviewHtml(options: { cspSource: string; scriptUri: string; styleUri: string; title: string; load: string }): string {
  const nonce = randomBytes(16).toString('base64');
  const csp = [
    "default-src 'none'",
    `style-src ${options.cspSource}`,
    `img-src ${options.cspSource} data:`,
    `font-src ${options.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${options.styleUri}">
<title>${options.title}</title>
</head>
<body data-load="${options.load}">
<main id="app" aria-live="polite"></main>
<script nonce="${nonce}" src="${options.scriptUri}"></script>
</body>
</html>`;
}
