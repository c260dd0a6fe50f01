import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigError, parseConfig, type ConfigInput } from './config/index.js';
import { sharedFileProblems } from './config/shared-files.js';
import { ServiceError, renderError, type ErrorFamily } from './errors/index.js';
import { ClientDeparture, closeIfUnread, lingeringClose, nextRequestId, requestIdHeader, RouteTable, sendJson } from './http/index.js';
import { routes } from './endpoints/index.js';
import type { RequestContext } from './endpoints/request-context.js';
import type { AdminOperations } from './policy/index.js';
import { consoleLogger, type Logger } from './logger.js';
import { Observer, redactingLogger, secretsOf, serveMetrics, type RequestObservation } from './observe/index.js';
import { Runtime, type SqlAssets } from './runtime.js';
import { consoleLedgerDirectory, OperatorConsole } from './console/index.js';
import { systemClock, type Clock } from './runtime-clock.js';

export interface TollgateOptions {
  /** Environment for `${NAME}` interpolation; `process.env` by default. */
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  /** Directory that relative file paths in the config resolve against; the working directory by default. */
  baseDir?: string;
  logger?: Logger;
  /**
   * Where sql.js's wasm and the SQL worker script live, for hosts that bundle Tollgate (the VS Code
   * extension): a bundle has no node_modules to resolve them from. Found beside the package by default.
   */
  sqlAssets?: SqlAssets;
}

/** The connect/Express middleware with its lifecycle and admin operations (DESIGN "Public API"). */
export interface Tollgate {
  (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void;
  /**
   * Serves the request if a Tollgate route matches; resolves to false, without touching the request,
   * when it does not (framework adapters call `next` then). Not named `handle`: connect would take the
   * middleware for a sub-app and pass `next` where the parsed body goes.
   */
  dispatch(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<boolean>;
  /** Resolves once sql.js and the policy store are up. */
  ready(): Promise<void>;
  /** Flushes databases and the ledger, stops workers, disconnects the store. */
  close(): Promise<void>;
  readonly admin: AdminOperations;
}

const CLOSE_CONNECTION: Readonly<Record<string, string>> = { connection: 'close' };
const NO_HEADERS: Readonly<Record<string, string>> = {};
/** A refused request's body up to this size is read and discarded, to keep its keep-alive connection. */
const DRAIN_LIMIT_BYTES = 64 * 1024;
/** How long a closing connection keeps discarding a refused upload, so the client reads its answer before the close. */
const MAX_LINGER_MS = 2_000;

/**
 * Creates the middleware. Synchronous: the configuration is validated at once (a bad one throws a
 * ConfigError naming the field), engines start lazily on first use.
 *
 * @example
 * const gate = tollgate({ keys: [{ key: process.env.TOLLGATE_KEY!, org: 'acme' }], organizations: { acme: {} } });
 * app.use(gate);
 */
export function tollgate(config: ConfigInput = {}, options: TollgateOptions = {}): Tollgate {
  const parsed = parseConfig(config, options.env ?? process.env);
  const sharedFiles = sharedFileProblems(parsed.config, options.baseDir ?? process.cwd());
  if (sharedFiles.length > 0) throw new ConfigError(`Invalid Tollgate configuration:\n  ${sharedFiles.join('\n  ')}`);
  // No configured secret reaches any logger, the host's included (README "Operating").
  const logger = redactingLogger(options.logger ?? consoleLogger, secretsOf(parsed.config));
  const observer = Observer.create(parsed.config, logger);
  const metricsConfig = parsed.config.metrics;
  let runtime: Runtime | undefined;
  const getRuntime = () =>
    (runtime ??= new Runtime(parsed, { env: options.env ?? process.env, clock: options.clock ?? systemClock, baseDir: options.baseDir ?? process.cwd(), logger, sqlAssets: options.sqlAssets, journalHooks: observer?.metrics?.journalHooks.bind(observer.metrics) }));
  const renderOptions = { anthropicDenialHeaders: parsed.config.anthropicDenialHeaders };
  const routeTable = new RouteTable(routes);
  const operatorConsole = parsed.config.console
    ? new OperatorConsole(parsed.config.console, { admin: () => getRuntime().admin(), keys: () => getRuntime().keyRing(), ledgerDir: consoleLedgerDirectory(parsed.config, options.baseDir ?? process.cwd()), clock: options.clock ?? systemClock, bodyTimeoutMs: parsed.config.bodyTimeoutMs })
    : undefined;

  async function dispatch(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<boolean> {
    if (metricsConfig && observer?.metrics && isPath(req.url, metricsConfig.path)) {
      await serveMetrics(req, res, metricsConfig, observer.metrics).catch((error: unknown) => respondWithError(res, ServiceError.from(error), 'openai'));
      return true;
    }
    if (operatorConsole?.serves(req.url)) {
      await operatorConsole.serve(req, res, parsedBody).catch((error: unknown) => {
        const serviceError = ServiceError.from(error);
        if (serviceError.kind === 'internal') logger.error(`internal error on ${req.method} ${req.url}`, serviceError.cause ?? serviceError);
        respondWithError(res, serviceError, 'openai', unreadBodyHeaders(req, serviceError.kind === 'body_timeout'));
      });
      return true;
    }
    const match = routeTable.match(req.method, req.url);
    if (match.kind === 'none') return false;
    // Every answer carries its id — success, stream and every error, 401 included — in the header the
    // family's official SDK reads; written before anything else so no path can answer without it.
    const requestId = nextRequestId();
    const idHeader = requestIdHeader[match.kind === 'found' ? match.route.family : match.family];
    if (match.kind !== 'found' || !match.route.writesRequestId) res.setHeader(idHeader, requestId);
    if (match.kind === 'wrong-method') {
      respondWithError(res, new ServiceError('method_not_allowed', `Method ${req.method} is not allowed here; use ${match.allowed.join(', ')}`), match.family, { allow: match.allowed.join(', ') });
      return true;
    }
    const observation: RequestObservation | undefined = observer?.start(req, match.route.path, requestId);
    const ctx: RequestContext = { req, res, runtime: getRuntime(), family: match.route.family, parsedBody, departure: new ClientDeparture(res), requestId, observation };
    try {
      await match.route.handler(ctx);
    } catch (error) {
      // The one catch of a served route: whatever fails, here or while rendering, is answered here and
      // never reaches `next(err)` (connect would answer an HTML page with a stack trace; issue 15 item 7).
      try {
        const serviceError = ServiceError.from(error);
        if (observation) observation.reason = serviceError.kind;
        if (serviceError.kind === 'internal') logger.error(`internal error on ${req.method} ${req.url} (request ${requestId})`, serviceError.cause ?? serviceError);
        if (res.headersSent) res.destroy();
        else {
          res.setHeader(idHeader, requestId);
          respondWithError(res, serviceError, match.route.family, unreadBodyHeaders(req, serviceError.kind === 'body_timeout'));
        }
      } catch (renderFailure) {
        logger.error(`could not render an error on ${req.method} ${req.url} (request ${requestId})`, renderFailure);
        if (res.headersSent) res.destroy();
        else sendJson(res, 500, { detail: 'Internal server error' }, { connection: 'close' });
      }
    }
    if (observation) observer!.finish(observation, req, res);
    closeIfUnread(res, parsed.config.relay.maxPausedStreamMs);
    return true;
  }

  function respondWithError(res: ServerResponse, error: ServiceError, family: ErrorFamily, extraHeaders: Record<string, string> = {}): void {
    const rendered = renderError(error, family, renderOptions);
    sendJson(res, rendered.status, rendered.body, { ...rendered.headers, ...extraHeaders });
  }

  /**
   * An error answered before the body was read (401 from the headers, 408, 413 declared up front): a
   * large or unsized body is never kept, the connection closes once the answer is out (after a short
   * lingering close, see lingeringClose), so a keyless client's 20 MiB or a stalled body holds nothing
   * (issue 15 item 6). A small declared body is
   * discarded by Node after the answer and the connection kept alive, unless it has not arrived by the
   * body deadline.
   */
  function unreadBodyHeaders(req: IncomingMessage, timedOut = false): Record<string, string> {
    if (req.complete) return NO_HEADERS;
    const declared = Number(req.headers['content-length']);
    // A body past its deadline (408) is not waited for a second time (RFC 9110 §15.5.9: the server closes).
    if (timedOut || !(declared <= DRAIN_LIMIT_BYTES)) {
      lingeringClose(req.socket, Math.min(parsed.config.bodyTimeoutMs, MAX_LINGER_MS));
      return CLOSE_CONNECTION;
    }
    const socket = req.socket;
    const deadline = setTimeout(() => socket.destroy(), parsed.config.bodyTimeoutMs);
    deadline.unref();
    const clear = () => clearTimeout(deadline);
    req.once('end', clear);
    req.once('close', clear);
    return NO_HEADERS;
  }

  function isPath(url: string | undefined, path: string): boolean {
    if (!url?.startsWith(path)) return false;
    return url.length === path.length || url[path.length] === '?';
  }

  const middleware = function tollgate(req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void {
    dispatch(req, res, (req as { body?: unknown }).body).then(
      (handled) => {
        if (handled) return;
        if (next) next();
        else sendJson(res, 404, { detail: 'Not Found' });
      },
      (error: unknown) => (next ? next(error) : res.destroy(error as Error)),
    );
  } as Tollgate;

  const admin: AdminOperations = {
    topUp: async (org, usd) => (await getRuntime().admin()).topUp(org, usd),
    setPaymentMethod: async (org, value) => (await getRuntime().admin()).setPaymentMethod(org, value),
    createKey: async (org, scopes) => (await getRuntime().admin()).createKey(org, scopes),
    revokeKey: async (keyOrId) => (await getRuntime().admin()).revokeKey(keyOrId),
    usage: async (org) => (await getRuntime().admin()).usage(org),
  };

  return Object.assign(middleware, {
    dispatch,
    ready: () => getRuntime().ready(),
    close: async () => {
      await runtime?.close();
    },
    admin,
  });
}
