import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate, hashKey, presentedKey, type KeyRing } from '../auth/index.js';
import type { ConsoleConfig } from '../config/index.js';
import { ServiceError } from '../errors/index.js';
import { OrgSlots, readJsonBody, sendJson } from '../http/index.js';
import type { AdminOperations } from '../policy/index.js';
import type { Clock } from '../runtime-clock.js';
import { consoleAssets, readConsoleAsset } from './console-assets.js';
import { cookieOf, LOGIN_COOKIE, SESSION_COOKIE, setCookie } from './console-cookies.js';
import { CONSOLE_HEADERS, consolePage } from './console-page.js';
import { ConsoleSessions, tokensMatch, type ConsoleSession } from './console-sessions.js';
import { LedgerDigests } from './ledger-digests.js';
import { firstDayOf, LEDGER_PAGE_SIZE, MAX_LEDGER_PAGE, orgActivity, recentLedger } from './org-activity.js';

/** What the console uses of the gateway: the same admin operations as `gate.admin` and `tollgate admin`. */
export interface ConsoleDependencies {
  admin(): Promise<AdminOperations>;
  keys(): Promise<KeyRing>;
  /** The ledger files' directory; undefined for a store without them (the charts and ledger stay empty). */
  ledgerDir: string | undefined;
  clock: Clock;
  /** How long a form's body may take to arrive (the config's `bodyTimeoutMs`, as for every endpoint). */
  bodyTimeoutMs: number;
}

/** One console request, once its route matched and its access was checked. */
interface ConsoleCall {
  req: IncomingMessage;
  res: ServerResponse;
  /** Where the browser sees the console: the host's mount prefix and `console.path`. */
  base: string;
  query: URLSearchParams;
  session: ConsoleSession | undefined;
  /** The organization named in the path, once checked to be the session's. */
  org: string;
  /** The body a framework's parser in front already read (Koa's `ctx.request.body`), if any. */
  parsedBody: unknown;
}

/**
 * Who may call a route. `page`: anyone. `login`: the login form's double-submit token. `session`: a live
 * session. `form`: a live session and its synchronizer token in `x-csrf-token` (every state change).
 */
type Access = 'page' | 'login' | 'session' | 'form';

interface ConsoleRoute {
  method: 'GET' | 'POST';
  /** Matched against the path below the console's; a first group names the organization. */
  pattern: RegExp;
  access: Access;
  handle(this: OperatorConsole, call: ConsoleCall): Promise<void>;
}

const DAYS_CHARTED = 30;
/** An organization's console ledger pages read at once (its console asks for one at a time; a few tabs fit). */
const LEDGER_READS_AT_ONCE = 4;
const MAX_BODY_BYTES = 16 * 1024;
const LOGIN_TOKEN_SECONDS = 3_600;
const LOGIN_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The operator's console (README "Console"): one HTML page and its built assets, and a small JSON API the
 * page calls. Every state change goes through the admin operations (`topUp`, `setPaymentMethod`,
 * `createKey`, `revokeKey`), so their checks apply; the console adds who may ask: an admin key's session,
 * for its own organization, with the session's CSRF token.
 *
 * @example
 * const operatorConsole = new OperatorConsole(config.console, { admin, keys, ledgerDir, clock });
 * if (operatorConsole.serves(req.url)) await operatorConsole.serve(req, res);
 */
export class OperatorConsole {
  readonly #sessions: ConsoleSessions;
  /** Ledger pages being read, per organization: at most LEDGER_READS_AT_ONCE (see ledger). */
  readonly #ledgerReads = new OrgSlots(() => LEDGER_READS_AT_ONCE, 'console ledger pages being read');
  /** The ledger files' sums the charts and pages read (ledger-digests.ts); undefined without ledger files. */
  readonly #digests: LedgerDigests | undefined;

  constructor(
    readonly config: ConsoleConfig,
    private readonly deps: ConsoleDependencies,
  ) {
    this.#sessions = new ConsoleSessions({ lifetimeMs: config.sessionMinutes * 60_000, maxSessions: config.maxSessions }, deps.clock);
    this.#digests = deps.ledgerDir === undefined ? undefined : new LedgerDigests(deps.ledgerDir);
  }

  /** Whether the URL (below the host's mount point) is the console's. */
  serves(url: string | undefined): boolean {
    const path = this.config.path;
    if (!url?.startsWith(path)) return false;
    const next = url[path.length];
    return next === undefined || next === '/' || next === '?';
  }

  /** Answers a console request; throws ServiceError for the dispatcher to render. */
  async serve(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    const raw = req.url ?? '/';
    const queryAt = raw.indexOf('?');
    const pathname = queryAt === -1 ? raw : raw.slice(0, queryAt);
    const below = pathname.slice(this.config.path.length);
    const candidates = consoleRoutes.filter((route) => route.pattern.test(below));
    const route = candidates.find((candidate) => candidate.method === req.method);
    if (!route) {
      if (candidates.length === 0) throw new ServiceError('invalid_request', `The console has no page ${pathname.slice(0, 100)}`);
      throw new ServiceError('method_not_allowed', `Method ${req.method} is not allowed here; use ${candidates.map((c) => c.method).join(', ')}`);
    }
    const call: ConsoleCall = { req, res, base: mountPrefix(req) + this.config.path, query: new URLSearchParams(queryAt === -1 ? '' : raw.slice(queryAt + 1)), session: undefined, org: '', parsedBody };
    call.session = await this.#admit(route.access, req);
    const named = route.pattern.exec(below)?.[1];
    if (named !== undefined) call.org = this.#ownOrganization(call.session!, named);
    await route.handle.call(this, call);
  }

  /** Refuses what the route's access does not allow; the session, for routes that need one. */
  async #admit(access: Access, req: IncomingMessage): Promise<ConsoleSession | undefined> {
    if (access === 'page') return undefined;
    if (access === 'login') {
      const formToken = cookieOf(req, LOGIN_COOKIE);
      if (formToken === undefined || !tokensMatch(header(req, 'x-csrf-token'), formToken)) throw new ServiceError('forbidden', 'The login form\'s CSRF token is missing or wrong; reload the console page');
      return undefined;
    }
    const session = this.#sessions.find(cookieOf(req, SESSION_COOKIE));
    if (!session) throw new ServiceError('unauthorized', 'Log in to the console with an admin key');
    // A revoked admin key ends its sessions at once.
    const key = (await this.deps.keys()).find(session.keySha256);
    if (!key || key.revoked || !key.scopes.includes('admin')) {
      this.#sessions.close(session.id);
      throw new ServiceError('unauthorized', 'The admin key of this session was revoked; log in again');
    }
    if (access === 'form' && !tokensMatch(header(req, 'x-csrf-token'), session.csrfToken)) {
      throw new ServiceError('forbidden', 'This form\'s CSRF token (x-csrf-token) is missing or wrong; nothing was changed');
    }
    return session;
  }

  /** An admin key administers its own organization only. */
  #ownOrganization(session: ConsoleSession, named: string): string {
    let org: string;
    try {
      org = decodeURIComponent(named);
    } catch {
      throw new ServiceError('invalid_request', 'The organization in the path is not valid percent-encoding');
    }
    if (org !== session.org) throw new ServiceError('forbidden', `This admin key administers "${session.org}", not "${org.slice(0, 100)}"`);
    return org;
  }

  async page(call: ConsoleCall): Promise<void> {
    // The browser's login token, if it has one: another tab's page may still show a login form sending it.
    const held = cookieOf(call.req, LOGIN_COOKIE);
    const loginToken = held !== undefined && LOGIN_TOKEN.test(held) ? held : randomBytes(32).toString('base64url');
    const { html, headers } = consolePage(call.base, loginToken);
    call.res.writeHead(200, { ...headers, 'content-length': Buffer.byteLength(html), 'set-cookie': setCookie(call.req, LOGIN_COOKIE, loginToken, { path: call.base, maxAgeSeconds: LOGIN_TOKEN_SECONDS }) });
    call.res.end(html);
  }

  async asset(call: ConsoleCall): Promise<void> {
    const name = (call.req.url ?? '').split('?')[0]!.split('/').pop()!;
    const asset = consoleAssets[name]!;
    const body = await readConsoleAsset(asset.file);
    call.res.writeHead(200, { ...CONSOLE_HEADERS, 'content-type': asset.type, 'content-length': body.length });
    call.res.end(body);
  }

  /** The admin key comes in `Authorization: Bearer`, checked as every endpoint checks keys, for the `admin` scope. */
  async login(call: ConsoleCall): Promise<void> {
    const principal = await authenticate(call.req, await this.deps.keys(), 'admin');
    const session = this.#sessions.open({ org: principal.org, keyId: principal.keyId, keySha256: hashKey(presentedKey(call.req)!) });
    sendJson(call.res, 200, sessionView(session), {
      ...CONSOLE_HEADERS,
      'set-cookie': setCookie(call.req, SESSION_COOKIE, session.id, { path: call.base, maxAgeSeconds: this.config.sessionMinutes * 60 }),
    });
  }

  async logout(call: ConsoleCall): Promise<void> {
    this.#sessions.close(call.session!.id);
    sendJson(call.res, 200, { loggedOut: true }, { ...CONSOLE_HEADERS, 'set-cookie': setCookie(call.req, SESSION_COOKIE, '', { path: call.base, maxAgeSeconds: 0 }) });
  }

  async session(call: ConsoleCall): Promise<void> {
    sendJson(call.res, 200, sessionView(call.session!), CONSOLE_HEADERS);
  }

  /** Wallet, allowance, totals, the charts of the last 30 days, and the organization's keys. */
  async overview(call: ConsoleCall): Promise<void> {
    const usage = await (await this.deps.admin()).usage(call.org);
    const activity = await orgActivity(this.#digests, call.org, this.deps.clock.now(), DAYS_CHARTED);
    const keys = (await this.deps.keys())
      .records()
      .filter((record) => record.org === call.org)
      .map((record) => ({ keyId: record.keyId, scopes: record.scopes, revoked: record.revoked, usage: usage.keys?.[record.keyId] ?? null }));
    const { keys: _perKey, ...totals } = usage;
    sendJson(call.res, 200, { org: call.org, usage: totals, activity, keys, ledgerFiles: this.deps.ledgerDir !== undefined }, CONSOLE_HEADERS);
  }

  async ledger(call: ConsoleCall): Promise<void> {
    const text = call.query.get('page') ?? '0';
    const page = /^\d{1,3}$/.test(text) ? Number(text) : Number.NaN;
    if (!(page <= MAX_LEDGER_PAGE)) throw new ServiceError('invalid_request', `page is a whole number from 0 to ${MAX_LEDGER_PAGE} (got "${text.slice(0, 20)}")`);
    // A page holds up to (page + 1) × 25 lines while its files are read: an organization's pages read at once are
    // bounded, or one admin asking for page 39 a thousand times at once held a million lines.
    const slot = this.#ledgerReads.of(call.org);
    slot.take();
    try {
      // The charts' days, no further back: a page never reads more history than the overview does.
      const { rows, hasOlder } = await recentLedger(this.deps.ledgerDir, this.#digests, call.org, page, firstDayOf(this.deps.clock.now(), DAYS_CHARTED));
      sendJson(call.res, 200, { page, pageSize: LEDGER_PAGE_SIZE, rows, hasOlder: hasOlder && page < MAX_LEDGER_PAGE }, CONSOLE_HEADERS);
    } finally {
      slot.give();
    }
  }

  /** The new key is in this answer only (only its hash is kept). Admin keys are configured, never created here. */
  async createKey(call: ConsoleCall): Promise<void> {
    const body = await this.#body(call);
    const created = await (await this.deps.admin()).createKey(call.org, body.scopes as ('models' | 'sql' | 'sql:read')[] | undefined);
    sendJson(call.res, 200, created, CONSOLE_HEADERS);
  }

  async revokeKey(call: ConsoleCall): Promise<void> {
    const { keyId } = await this.#body(call);
    // Any id a key can have: a configured `id` is any non-empty string (the console lists it with its Revoke button).
    if (typeof keyId !== 'string' || keyId === '') throw new ServiceError('invalid_request', 'keyId is the id of a key of this organization');
    const record = (await this.deps.keys()).byId(keyId);
    if (!record) throw new ServiceError('invalid_request', `No key has the id "${keyId.slice(0, 100)}"; nothing was changed`);
    if (record.org !== call.org) throw new ServiceError('forbidden', `The key "${keyId.slice(0, 100)}" belongs to another organization; nothing was changed`);
    const revoked = await (await this.deps.admin()).revokeKey(keyId);
    sendJson(call.res, 200, { keyId, revoked }, CONSOLE_HEADERS);
  }

  async topUp(call: ConsoleCall): Promise<void> {
    const { usd } = await this.#body(call);
    const result = await (await this.deps.admin()).topUp(call.org, usd as number);
    sendJson(call.res, 200, result, CONSOLE_HEADERS);
  }

  async setPaymentMethod(call: ConsoleCall): Promise<void> {
    const { enabled } = await this.#body(call);
    if (typeof enabled !== 'boolean') throw new ServiceError('invalid_request', `enabled is true or false (got ${JSON.stringify(enabled)?.slice(0, 40)})`);
    await (await this.deps.admin()).setPaymentMethod(call.org, enabled);
    sendJson(call.res, 200, { paymentMethod: enabled }, CONSOLE_HEADERS);
  }

  async #body(call: ConsoleCall): Promise<Record<string, unknown>> {
    const body = await readJsonBody(call.req, { limitBytes: MAX_BODY_BYTES, deadlineMs: this.deps.bodyTimeoutMs, parsed: call.parsedBody });
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ServiceError('invalid_request', 'The body is a JSON object');
    return body as Record<string, unknown>;
  }
}

/** The console's routes, below `console.path`; `([^/]+)` is the organization. */
const consoleRoutes: readonly ConsoleRoute[] = [
  { method: 'GET', pattern: /^(?:\/|\/billing|\/orgs\/[^/]+(?:\/billing)?)?$/, access: 'page', handle: OperatorConsole.prototype.page },
  { method: 'GET', pattern: /^\/assets\/console\.(?:js|css)$/, access: 'page', handle: OperatorConsole.prototype.asset },
  { method: 'POST', pattern: /^\/login$/, access: 'login', handle: OperatorConsole.prototype.login },
  { method: 'POST', pattern: /^\/logout$/, access: 'form', handle: OperatorConsole.prototype.logout },
  { method: 'GET', pattern: /^\/api\/session$/, access: 'session', handle: OperatorConsole.prototype.session },
  { method: 'GET', pattern: /^\/api\/orgs\/([^/]+)$/, access: 'session', handle: OperatorConsole.prototype.overview },
  { method: 'GET', pattern: /^\/api\/orgs\/([^/]+)\/ledger$/, access: 'session', handle: OperatorConsole.prototype.ledger },
  { method: 'POST', pattern: /^\/api\/orgs\/([^/]+)\/keys$/, access: 'form', handle: OperatorConsole.prototype.createKey },
  { method: 'POST', pattern: /^\/api\/orgs\/([^/]+)\/keys\/revoke$/, access: 'form', handle: OperatorConsole.prototype.revokeKey },
  { method: 'POST', pattern: /^\/api\/orgs\/([^/]+)\/top-up$/, access: 'form', handle: OperatorConsole.prototype.topUp },
  { method: 'POST', pattern: /^\/api\/orgs\/([^/]+)\/payment-method$/, access: 'form', handle: OperatorConsole.prototype.setPaymentMethod },
];

function sessionView(session: ConsoleSession): { org: string; keyId: string; csrfToken: string; expiresAt: string } {
  return { org: session.org, keyId: session.keyId, csrfToken: session.csrfToken, expiresAt: new Date(session.expiresAt).toISOString() };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The path the host mounted Tollgate under (Express sets `originalUrl`; connect strips the prefix from `url`). */
function mountPrefix(req: IncomingMessage): string {
  const original = (req as { originalUrl?: unknown }).originalUrl;
  const url = req.url ?? '';
  return typeof original === 'string' && original.endsWith(url) ? original.slice(0, original.length - url.length) : '';
}
