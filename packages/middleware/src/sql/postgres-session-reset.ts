import type pg from 'pg';

/**
 * What undoes everything a request may have left on its session (README "PostgreSQL"): settings changed by
 * `set_config(…, false)` or a function's `SET`, `SET ROLE` / session authorization, session advisory locks,
 * LISTEN, prepared statements, cursors WITH HOLD, temporary tables, `lastval()`/`currval()` and cached plans.
 * The statement policy cannot see most of these (a function, a view or an operator can cause them; every
 * INSERT into a serial column changes `lastval()`), so no request is let through without it. The connection
 * string's settings, statement_timeout included, are the session's defaults and survive it.
 */
export const SESSION_RESET = 'DISCARD ALL';

/**
 * Gives a connection back to the pool once its reset settled (a connection the reset failed on is closed, not
 * reused).
 * The reset goes out behind the request's last exchange (postgres-exchange.ts): no round trip of its own.
 */
export function releaseAfterReset(client: pg.PoolClient, reset: Promise<unknown>): void {
  reset.then(
    () => client.release(),
    (error: Error) => client.release(error),
  );
}
