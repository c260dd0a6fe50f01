import { randomUUID } from 'node:crypto';
import type { KeyRing } from '../auth/index.js';
import type { ResolvedConfig } from '../config/index.js';
import type { Clock } from '../runtime-clock.js';
import { denials } from './denials.js';
import { keyBudgetSpent } from './key-rules.js';
import type { AdmitAnswer, Admitted, ErrorReport, PolicyBackend, Refusal } from './policy-backend.js';
import type { Admission, AdmissionRequest, Policy, Soon, Usage } from './policy-types.js';
import { SettlementRetry } from './settlement-retry.js';

const NEVER_DEFERRED = async (): Promise<void> => undefined;

/**
 * The one Policy, whatever the store: it asks the backend for one atomic verdict, words the refusal
 * (denials.ts), bounds a remote store by `policyTimeoutMs` (DESIGN step 7: fail closed, never unmetered),
 * settles each admission once and keeps the settlements storage could not take until it is back.
 *
 * @example
 * const policy = new PolicyOverBackend(backend, { config, keys, clock, logger });
 * const admission = await policy.admit(request);
 * await admission.settle({ inputTokens: 12, outputTokens: 40 });
 */
export class PolicyOverBackend<Ticket, Pending extends { id: string }> implements Policy {
  readonly #retry: SettlementRetry<Pending> | undefined;
  readonly #unsent: (pending: Pending) => Promise<void>;
  readonly #unsentRelease: (pending: Pending) => Promise<void>;

  constructor(
    private readonly backend: PolicyBackend<Ticket, Pending>,
    private readonly context: { config: ResolvedConfig; keys: KeyRing; clock: Clock; logger: ErrorReport },
  ) {
    this.#retry = backend.retries ? new SettlementRetry(backend.retries, context.logger) : undefined;
    this.#unsent = this.#retry?.defer ?? NEVER_DEFERRED;
    this.#unsentRelease = this.#retry?.deferRelease ?? NEVER_DEFERRED;
  }

  get idempotency() {
    return this.backend.idempotency;
  }

  admit(request: AdmissionRequest): Promise<Admission> {
    try {
      return Promise.resolve(this.admitSoon(request));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  admitSoon(request: AdmissionRequest): Soon<Admission> {
    const org = this.context.config.organizations[request.principal.org];
    if (!org) throw denials.organizationGone();
    const now = this.context.clock.now();
    if (this.backend.inProcess) return this.#admitted(this.backend.admit(request, org, now, '') as AdmitAnswer<Ticket>, request, now);
    return this.#admitRemote(request, org, now).then((answer) => this.#admitted(answer, request, now));
  }

  #admitted(answer: AdmitAnswer<Ticket>, request: AdmissionRequest, now: number): Admission {
    if (answer.verdict !== 'ok') throw this.#denial(answer, request, now);
    return new BackendAdmission(this.backend, answer, request, this.#unsent);
  }

  async close(): Promise<void> {
    await this.#retry?.close();
    await this.backend.close();
  }

  async #admitRemote(request: AdmissionRequest, org: ResolvedConfig['organizations'][string], now: number): Promise<AdmitAnswer<Ticket>> {
    const attempt = randomUUID();
    let admitting: Promise<AdmitAnswer<Ticket>> | undefined;
    try {
      admitting = Promise.resolve(this.backend.admit(request, org, now, attempt));
      return await withDeadline(admitting, this.context.config.policyTimeoutMs);
    } catch (error) {
      // The admission may still have run (a reply lost or late): the backend releases what it may hold,
      // so a refused request never keeps a concurrency slot until its lease expires. Past the deadline the
      // backend's admission may still be under way (several round trips): the release is sent once it has
      // ended, never before its last command, which would otherwise take the lease after the release.
      const release = (cause: unknown) => this.backend.abandon(attempt, request, cause, this.#unsentRelease);
      if (admitting && error instanceof DeadlineExpired) admitting.then(() => release(error), release);
      else release(error);
      throw denials.policyUnavailable(error);
    }
  }

  #denial(refusal: Refusal, request: AdmissionRequest, now: number) {
    const { recoveryUrl } = this.context.config;
    switch (refusal.verdict) {
      case 'rate':
        return denials.rateLimited(refusal.waitMs, refusal.what);
      case 'wallet':
        return denials.walletEmpty(recoveryUrl);
      case 'exhausted':
        return denials.allowanceExhausted(new Date(refusal.resetAt || now));
      case 'budget':
        return request.principal.budget ? keyBudgetSpent(request.principal.budget, refusal.renewsAt || now, recoveryUrl) : denials.unexpectedVerdict('budget');
      case 'revoked':
        // Revoked on another instance: this one's KeyRing learns it now, before the broadcast arrives.
        this.context.keys.revoke(request.principal.keyId);
        return denials.revokedKey();
      case 'gone':
        return denials.organizationGone();
      case 'unexpected':
        return denials.unexpectedVerdict(refusal.answer);
    }
  }
}

const UNSETTLED = Symbol('unsettled');

/** One admission let in: settled once, whatever calls settle (a class, not closures: nothing per request but itself). */
class BackendAdmission<Ticket, Pending extends { id: string }> implements Admission {
  #settled: Soon<number | undefined> | typeof UNSETTLED = UNSETTLED;

  constructor(
    private readonly backend: PolicyBackend<Ticket, Pending>,
    private readonly answer: Admitted<Ticket>,
    private readonly request: AdmissionRequest,
    private readonly unsent: (pending: Pending) => Promise<void>,
  ) {}

  get limits() {
    return this.answer.limits;
  }

  settle(usage: Usage, route?: string): Promise<number | undefined> {
    return Promise.resolve(this.settleSoon(usage, route));
  }

  settleSoon(usage: Usage, route?: string): Soon<number | undefined> {
    if (this.#settled === UNSETTLED) this.#settled = this.backend.settle(this.answer, this.request, usage, route, this.unsent);
    return this.#settled;
  }
}

/** The policy store did not answer within policyTimeoutMs: its admission may still be under way. */
class DeadlineExpired extends Error {}

/** DESIGN step 7: the whole admission answers within the deadline, however many commands it needed. */
function withDeadline<T>(work: Promise<T> | T, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExpired(`the policy store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
