import { randomBytes, timingSafeEqual } from 'node:crypto';
import { endWithin, type Clock } from '../runtime-clock.js';

/** A logged-in admin key: which organization it administers, and the token its forms must send back. */
export interface ConsoleSession {
  readonly id: string;
  /** Synchronizer token: every POST of the session carries it in `x-csrf-token`. */
  readonly csrfToken: string;
  readonly org: string;
  readonly keyId: string;
  /** The admin key's hash: a session ends once its key is revoked. */
  readonly keySha256: string;
  /** When it ends (epoch ms): never more than the lifetime away (see ConsoleSessions #live). */
  expiresAt: number;
}

/**
 * How many sessions one admin key holds at once; its next login ends its own oldest. Without it, the one
 * installation-wide bound let a single admin key's login flood (any organization's) drop every other
 * organization's operator as "the oldest".
 */
export const SESSIONS_PER_KEY = 10;

/**
 * The console's sessions, held in memory and bounded (README "Console"): each lives a fixed time, expired
 * ones are dropped as new ones open, one key holds at most `SESSIONS_PER_KEY`, and past `maxSessions` the
 * oldest is dropped, so a flood of logins cannot grow the process nor, from one key, log anyone else out.
 * A Map keeps insertion order, which with one lifetime is also expiry order (per key as well; to within a clock step).
 *
 * @example
 * const sessions = new ConsoleSessions({ lifetimeMs: 3_600_000, maxSessions: 1_000 }, systemClock);
 * const session = sessions.open({ org: 'acme', keyId: 'ops', keySha256 });
 * sessions.find(session.id)?.org // 'acme'
 */
export class ConsoleSessions {
  readonly #sessions = new Map<string, ConsoleSession>();
  /** Each key's session ids, oldest first. */
  readonly #byKey = new Map<string, Set<string>>();

  constructor(
    private readonly limits: { lifetimeMs: number; maxSessions: number },
    private readonly clock: Clock,
  ) {}

  open(owner: { org: string; keyId: string; keySha256: string }): ConsoleSession {
    const now = this.clock.now();
    for (const [id, session] of this.#sessions) {
      if (this.#live(session, now) && this.#sessions.size < this.limits.maxSessions) break;
      this.close(id);
    }
    const ofKey = this.#byKey.get(owner.keySha256) ?? new Set<string>();
    for (const id of ofKey) {
      if (ofKey.size < SESSIONS_PER_KEY) break;
      this.close(id);
    }
    const session: ConsoleSession = { id: token(), csrfToken: token(), org: owner.org, keyId: owner.keyId, keySha256: owner.keySha256, expiresAt: now + this.limits.lifetimeMs };
    this.#sessions.set(session.id, session);
    this.#byKey.set(owner.keySha256, ofKey.add(session.id));
    return session;
  }

  /** The live session of this id; an expired one is dropped and not found. */
  find(id: string | undefined): ConsoleSession | undefined {
    if (id === undefined) return undefined;
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    if (this.#live(session, this.clock.now())) return session;
    this.close(id);
    return undefined;
  }

  /**
   * Whether a session is live at `now`. Its end is never more than the lifetime away: a clock stepped back (an
   * NTP correction of a clock a day fast) kept a five-minute session, and a cookie stolen from it, valid for the
   * whole step; its end moves back with the clock instead, so the step adds at most one lifetime.
   */
  #live(session: ConsoleSession, now: number): boolean {
    session.expiresAt = endWithin(session.expiresAt, this.limits.lifetimeMs, now);
    return session.expiresAt > now;
  }

  close(id: string): void {
    const session = this.#sessions.get(id);
    if (!session) return;
    this.#sessions.delete(id);
    const ofKey = this.#byKey.get(session.keySha256)!;
    ofKey.delete(id);
    if (ofKey.size === 0) this.#byKey.delete(session.keySha256);
  }

  get size(): number {
    return this.#sessions.size;
  }
}

/** Compares a presented token with the expected one in constant time. */
export function tokensMatch(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const given = Buffer.from(presented);
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

function token(): string {
  return randomBytes(32).toString('base64url');
}
