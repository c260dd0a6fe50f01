/** Headers of every console answer: never cached, never framed, never sniffed. */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

/** The page's policy: its own scripts and styles only (no CDN, no inline code), forms post to itself only. */
const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * The console's one HTML page (the browser code renders the rest): where the console is mounted, and the
 * login form's double-submit token (the same value is set as a cookie beside it).
 *
 * @example
 * consolePage('/console', loginToken)
 */
export function consolePage(base: string, loginToken: string): { html: string; headers: Record<string, string> } {
  const href = escapeHtml(base);
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tollgate console</title>
<meta name="tollgate-console-base" content="${href}">
<meta name="tollgate-login-token" content="${escapeHtml(loginToken)}">
<link rel="stylesheet" href="${href}/assets/console.css">
</head>
<body>
<main id="app"><p class="muted">Loading…</p></main>
<script type="module" src="${href}/assets/console.js"></script>
</body>
</html>
`;
  return { html, headers: { ...CONSOLE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CONTENT_SECURITY_POLICY } };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
