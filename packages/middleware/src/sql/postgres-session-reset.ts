import type pg from 'pg';
import { sendOwnStatement } from './postgres-own-statement.js';

/**
 * What undoes everything a request may have left on its session (README "PostgreSQL"): settings changed by
 * `set_config(…, false)` or a function's `SET`, `SET ROLE` / session authorization, session advisory locks,
 * LISTEN, prepared statements, cursors WITH HOLD, temporary tables, `lastval()`/`currval()` and cached plans.
 * The statement policy cannot see most of these (a function, a view or an operator can cause them; every
 * INSERT into a serial column changes `lastval()`), so no request is let through without it. The connection
 * string's settings, statement_timeout included, are the session's defaults and survive it.
 */
export const SESSION_RESET = 'DISCARD ALL';

/** The parts of pg's Client this module drives: its pipeline mode (pg ≥ 8.16) and the socket under it. */
interface PipelinedClient {
  pipeline: boolean;
  connection: { stream: { cork?(): void; uncork?(): void } };
}

/** A request's last exchange with PostgreSQL and the session reset written behind it. */
export interface LastWithReset<T> {
  /** The last exchange's answer: the request answers with it, without waiting for the reset. */
  answer: Promise<T>;
  /** Settles once the session is clean; the connection goes back to the pool only then (releaseAfterReset). */
  reset: Promise<unknown>;
}

/**
 * Writes the request's last exchange (`send`: its lone statement, or COMMIT/ROLLBACK) and `DISCARD ALL` to the
 * socket in one write, in pg's pipeline mode, so the reset costs no round trip: PostgreSQL answers both in turn
 * and neither side waits in between. Each has its own Sync, so a failing statement does not skip the reset, and
 * DISCARD ALL (which refuses to run inside a transaction) runs on its own after it. Pipeline mode is on only
 * for this write: pg-cursor, which the NDJSON path uses, refuses it.
 *
 * The reset's read timeout (`readTimeoutMs`, a hung server) covers the exchange ahead of it as well, so `send`
 * arms none of its own (one timer per request, not two): both are written at once and PostgreSQL answers the
 * exchange first, and when the timeout fires in pipeline mode pg closes the connection, which fails both with
 * "Connection terminated" (503 database_unavailable, as 'Query read timeout' is).
 *
 * @example
 * const { answer, reset } = sendWithReset(client, () => sendOwnStatement(client, 'COMMIT', undefined), 7_000);
 * await answer; // the request answers now
 * releaseAfterReset(client, reset); // the connection rejoins the pool once clean
 */
export function sendWithReset<T>(client: pg.PoolClient, send: () => Promise<T>, readTimeoutMs: number): LastWithReset<T> {
  const pipelined = client as unknown as PipelinedClient;
  const { stream } = pipelined.connection;
  pipelined.pipeline = true;
  stream.cork?.();
  let answer: Promise<T>;
  let reset: Promise<unknown>;
  try {
    answer = send();
    reset = sendOwnStatement(client, SESSION_RESET, readTimeoutMs);
  } finally {
    stream.uncork?.();
  }
  const settled = reset.finally(() => (pipelined.pipeline = false));
  // Its failure is read by releaseAfterReset once the request answered; until then it must not count as an
  // unhandled rejection (a hung server fails the reset, whose timeout fires first, before the answer does).
  settled.catch(() => undefined);
  return { answer, reset: settled };
}

/**
 * Gives a connection back to the pool once its reset settled (a connection the reset failed on is closed, not
 * reused). A `broken` connection (the server went away or hung, a cancel may still land) is closed at once.
 * Without a pipelined reset (a request that failed before its last exchange) the reset is sent on its own.
 */
export function releaseAfterReset(client: pg.PoolClient, reset: Promise<unknown> | undefined, readTimeoutMs: number, broken?: Error): void {
  if (broken) {
    reset?.catch(() => undefined);
    client.release(broken);
    return;
  }
  (reset ?? sendWithReset(client, () => Promise.resolve(), readTimeoutMs).reset).then(
    () => client.release(),
    (error: Error) => client.release(error),
  );
}
