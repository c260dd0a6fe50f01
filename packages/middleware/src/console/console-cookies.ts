import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** The session cookie and the login form's double-submit cookie (README "Console"). */
export const SESSION_COOKIE = 'tollgate_console';
export const LOGIN_COOKIE = 'tollgate_console_login';

/** The value of one cookie of the request, or undefined. */
export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator !== -1 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/**
 * A `Set-Cookie` value: always HttpOnly and SameSite=Strict (no other site's page can send it, which is
 * the first CSRF defence); Secure when the browser reached us over https (directly or, as a proxy says, in
 * front of us: marking a cookie Secure is only ever stricter, so the header may be trusted here).
 *
 * @example
 * setCookie(req, SESSION_COOKIE, session.id, { path: '/console', maxAgeSeconds: 3600 })
 */
export function setCookie(req: IncomingMessage, name: string, value: string, options: { path: string; maxAgeSeconds: number }): string {
  const secure = (req.socket as TLSSocket).encrypted === true || req.headers['x-forwarded-proto'] === 'https';
  return `${name}=${value}; Path=${options.path}; Max-Age=${options.maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}
