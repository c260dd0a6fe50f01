import type pg from 'pg';
import { isServerGone } from './classify-sqlstate.js';
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

/** The session reset that led a request's first Sync unit failed: the session's state is unknown. */
export class SessionResetFailed extends Error {
  constructor(cause: Error) {
    super(`The connection's session reset (${SESSION_RESET}) failed: ${cause.message}`, { cause });
  }
}

/** The reset on its own (a Query of its own): a server's error is the reset's (SessionResetFailed). */
export function resetSession(client: pg.PoolClient, readTimeoutMs: number): Promise<void> {
  return sendOwnStatement(client, SESSION_RESET, readTimeoutMs).catch((error: Error) => Promise.reject(isServerGone(error) ? error : new SessionResetFailed(error)));
}

/**
 * Which pooled connections carry a previous request's session state, and when each is reset.
 *
 * A request's connection goes back to the pool dirty, and the next request to take it sends the reset first in its
 * own first Sync unit (postgres-exchange.ts): PostgreSQL answers the reset and the statement in one reply, one
 * TCP segment. Sent behind the statement instead, the reset is a second ReadyForQuery, so a second segment the
 * server reads and acknowledges on its own, and PostgreSQL refuses `DISCARD ALL` inside the statement's Sync unit
 * (README "PostgreSQL", "Session isolation"). A connection nobody takes within `idleResetMs` (`pool.idleResetMs`)
 * is reset in the background: that bounds how long a request's session state (an advisory lock, a LISTEN, a
 * temporary table) outlives its answer when no other request takes the connection.
 */
export class SessionResets {
  /** Connections whose next statement must come after a reset. */
  readonly #dirty = new WeakSet<pg.PoolClient>();
  /** Dirty connections idle in the pool, in the order they came back, with when (performance.now()). */
  readonly #idle = new Map<pg.PoolClient, number>();
  #sweep: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly idleResetMs: number,
    private readonly readTimeoutMs: number,
  ) {}

  /** A connection just taken from the pool: true when the taker must reset its session first. */
  take(client: pg.PoolClient): boolean {
    this.#idle.delete(client);
    return this.#dirty.delete(client);
  }

  /** Gives a connection a request used back to the pool, dirty. */
  release(client: pg.PoolClient): void {
    this.#dirty.add(client);
    this.#idle.set(client, performance.now());
    this.#sweep ??= setTimeout(this.#resetIdle, this.idleResetMs).unref();
    client.release();
  }

  close(): void {
    clearTimeout(this.#sweep);
    this.#sweep = undefined;
  }

  /** Resets, in the background, every connection idle for `idleResetMs` or longer; comes back for the others. */
  readonly #resetIdle = (): void => {
    this.#sweep = undefined;
    const now = performance.now();
    for (const [client, since] of this.#idle) {
      const due = since + this.idleResetMs;
      if (due > now) {
        this.#sweep = setTimeout(this.#resetIdle, due - now).unref();
        return;
      }
      this.#idle.delete(client);
      this.#resetInPool(client);
    }
  };

  /**
   * Queued on the idle connection itself: pg runs its client's queue in order, so a request that takes the
   * connection meanwhile runs after it (and, finding it still marked dirty, resets it once more). A reset that
   * fails closes the connection, which fails that request's statement instead of running it on a dirty session.
   */
  #resetInPool(client: pg.PoolClient): void {
    resetSession(client, this.readTimeoutMs).then(
      () => this.#dirty.delete(client),
      () => (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy(),
    );
  }
}
