import { ServiceError } from '../errors/index.js';

/**
 * An organization's share of a pool of `max` connections that `organizations` reach: all but one when there are
 * several, so the others always find one; undefined (no share) for one organization, or a pool of one.
 *
 * @example
 * poolShare(10, 3) // 9
 */
export function poolShare(max: number, organizations: number): number | undefined {
  return organizations > 1 && max > 1 ? max - 1 : undefined;
}

/** One request of an organization at its share, waiting for one of the organization's connections to come back. */
interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

/**
 * How many of a PostgreSQL database's pooled connections one organization may hold at once, when several
 * organizations reach it (README "PostgreSQL"). A request holds its connection until its answer ends: a stream
 * its client does not read up to `sql.streamTimeoutMs`, so one key opening `pool.max` of them (or as many slow
 * statements) left every other organization waiting for a connection, then answered 503. At its share, an
 * organization's request waits for one of its own connections to come back, as long as the pool's own wait
 * (`waitMs`), then answers 429 rate_limited: too many concurrent requests (contract §7.1, §8 rule 1).
 *
 * Under the share, `take` counts and answers undefined: no promise, no allocation on a request's way.
 *
 * @example
 * const shares = new OrganizationShares(9, 2_000, 'main');
 * const waiting = shares.take('acme');
 * if (waiting) await waiting;
 * try { … } finally { shares.give('acme'); }
 */
export class OrganizationShares {
  /** Connections held (or being taken) per organization; an organization holding none has no entry. */
  readonly #held = new Map<string, number>();
  readonly #waiting = new Map<string, Waiter[]>();

  constructor(
    private readonly perOrganization: number,
    private readonly waitMs: number,
    private readonly db: string,
  ) {}

  /** Counts one connection for `org`: undefined when it is under its share, else a wait for one of its own. */
  take(org: string): Promise<void> | undefined {
    const held = this.#held.get(org) ?? 0;
    if (held < this.perOrganization) {
      this.#held.set(org, held + 1);
      return undefined;
    }
    return new Promise((resolve, reject) => {
      const queue = this.#waiting.get(org) ?? [];
      this.#waiting.set(org, queue);
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          queue.splice(queue.indexOf(waiter), 1);
          if (queue.length === 0) this.#waiting.delete(org);
          reject(this.#atShare());
        }, this.waitMs),
      };
      queue.push(waiter);
    });
  }

  /** `org`'s connection came back: handed to its oldest waiting request, else uncounted. */
  give(org: string): void {
    const queue = this.#waiting.get(org);
    const next = queue?.shift();
    if (next) {
      if (queue!.length === 0) this.#waiting.delete(org);
      next.grant();
      return;
    }
    const held = this.#held.get(org)! - 1;
    if (held === 0) this.#held.delete(org);
    else this.#held.set(org, held);
  }

  #atShare(): ServiceError {
    return new ServiceError('rate_limited', `This organization's requests hold ${this.perOrganization} connections to database "${this.db}", its share of the pool; retry after the Retry-After interval`, {
      retryAfterSeconds: 1,
      context: { db: this.db },
    });
  }
}
