import type { OrganizationConfig } from '../config/index.js';
import type { IdempotencyStore } from '../idempotency/index.js';
import type { Clock } from '../runtime-clock.js';
import { admissionRefusal, applySettlement, chargeFor, includedClaim, limitRefusal, longerWait, recordAdmission, releaseSlot, reservationMicros } from './admission-rules.js';
import { keyRefusal, recordKeyAdmission, refreshBudget, settleKey, type KeyState } from './key-rules.js';
import { billedTokens, type BilledTokens } from './money.js';
import { refreshAllowance, type OrgBalances, type OrgWindows, type WindowTicket } from './org-state.js';
import type { AdmitAnswer, Admitted, ErrorReport, PolicyBackend } from './policy-backend.js';
import type { AdmissionRequest, Soon, Usage } from './policy-types.js';
import { rateLimitState } from './rate-limit-state.js';

/**
 * What an in-process store keeps (the memory store): the state the rules read and change, and where a
 * settlement is written. Storage only: every rule runs in InProcessBackend.
 */
export interface PolicyState {
  balances(org: string): OrgBalances | undefined;
  windows(org: string): OrgWindows | undefined;
  /** A key's state, created at its first request. */
  keyState(keyId: string): KeyState;
  /**
   * Records a settlement that charged something (its ledger line); undefined when nothing is kept on disk.
   * Never rejects: the charge already stands in memory, a line the disk refused is reported by the store.
   */
  appendLedger(request: AdmissionRequest, usage: BilledTokens, charge: { includedTokens: number; costMicros: number }, route: string | undefined): Promise<void> | undefined;
  readonly idempotency: IdempotencyStore;
  close(): Promise<void>;
}

/** What an in-process admission left: its share of the organization's windows and of the key's. */
export interface InProcessTicket {
  org: WindowTicket;
  key: WindowTicket;
}

/**
 * policy/'s rules over a state in this process's memory. JavaScript runs one admission at a time, so each
 * synchronous admit (check, then record) and each settlement's charge is atomic without locks.
 *
 * @example
 * const policy = new PolicyOverBackend(new InProcessBackend(store, config.organizations, clock, logger), context);
 */
export class InProcessBackend implements PolicyBackend<InProcessTicket> {
  readonly inProcess = true;

  constructor(
    private readonly state: PolicyState,
    private readonly organizations: Readonly<Record<string, OrganizationConfig>>,
    private readonly clock: Clock,
    private readonly logger: ErrorReport,
  ) {}

  get idempotency() {
    return this.state.idempotency;
  }

  admit(request: AdmissionRequest, org: OrganizationConfig, now: number): AdmitAnswer<InProcessTicket> {
    const balances = this.state.balances(request.principal.org);
    const windows = this.state.windows(request.principal.org);
    // One process: authentication already saw every revocation, so only the organization is checked here.
    if (!balances || !windows) return GONE;
    refreshAllowance(balances, org, now);
    const reservation = reservationMicros(org, balances, request, windows);
    const refusal = admissionRefusal(org, balances, windows, request, now, reservation);
    // The key's own limits and budget, after the organization's (README "Per-key limits and budgets").
    const keyState = this.state.keyState(request.principal.keyId);
    // A rate refusal names the longest wait of the organization's windows and the key's, so a retry after it is admitted.
    if (refusal) return request.principal.limits ? longerWait(refusal, limitRefusal(request.principal.limits, keyState.windows, request, now)) : refusal;
    refreshBudget(keyState, request.principal, now);
    const keyRefused = keyRefusal(request.principal, keyState, request, now, reservation);
    if (keyRefused) return keyRefused;
    const ticket = recordAdmission(org, windows, request, now, reservation, includedClaim(org, balances, windows, request));
    const keyTicket = recordKeyAdmission(request.principal, keyState, request, now, reservation);
    const head = Math.max(windows.requests.head, windows.tokens.head);
    return { verdict: 'ok', org: ticket, key: keyTicket, limits: rateLimitState(org.limits, windows.requests.total, windows.tokens.total, head, now) };
  }

  /**
   * Never throws: it runs after the answer was given, so a failure here can only leak the slot or turn a
   * delivered answer into a 500 (issue 15). Whatever goes wrong frees the slot (the organization's and the
   * key's, with their reservations) and is logged.
   * Resolves to the micro-dollars charged (the X-Service-Cost-Usd header), undefined when it failed.
   */
  settle(ticket: Admitted<InProcessTicket>, request: AdmissionRequest, usage: Usage, route: string | undefined): Soon<number | undefined> {
    const windows = this.state.windows(request.principal.org)!;
    try {
      const charged = this.#charge(ticket, request, usage, windows, route);
      // Without a ledger file the charge is known now: no promise (issue 19, PolicyBackend.settle).
      return charged instanceof Promise ? charged.catch((error: unknown) => this.#failed(ticket, request, windows, error)) : charged;
    } catch (error) {
      return this.#failed(ticket, request, windows, error);
    }
  }

  #failed(ticket: InProcessTicket, request: AdmissionRequest, windows: OrgWindows, error: unknown): undefined {
    releaseSlot(windows, ticket.org, 0);
    releaseSlot(this.state.keyState(request.principal.keyId).windows, ticket.key, 0);
    this.logger.error(`settlement of ${request.alias} for ${request.principal.org} failed; its slot is released, nothing was charged`, error);
    return undefined;
  }

  /** In process, an admission either ran or threw: nothing is ever left half-done. */
  abandon(): void {}

  close(): Promise<void> {
    return this.state.close();
  }

  #charge(ticket: InProcessTicket, request: AdmissionRequest, usage: Usage, windows: OrgWindows, route: string | undefined): Soon<number> {
    const balances = this.state.balances(request.principal.org)!;
    const orgConfig = this.organizations[request.principal.org]!;
    const keyState = this.state.keyState(request.principal.keyId);
    // Whole non-negative safe counts (settledCount's rule), cache parts clamped to the prompt (policy/money.ts).
    const clean = billedTokens(usage);
    refreshAllowance(balances, orgConfig, this.clock.now());
    if (clean.inputTokens === 0 && clean.outputTokens === 0) {
      // Nothing was produced (refused upstream, client gone before any answer): release the slot, no ledger line.
      releaseSlot(windows, ticket.org, 0);
      settleKey(keyState, ticket.key, clean, 0);
      return 0;
    }
    const charge = chargeFor(orgConfig, balances, request, clean);
    applySettlement(balances, windows, ticket.org, clean, charge);
    refreshBudget(keyState, request.principal, this.clock.now());
    settleKey(keyState, ticket.key, clean, charge.costMicros);
    // The slot is free at once and the charge stands in memory; the ledger line follows.
    const written = this.state.appendLedger(request, clean, charge, route);
    const cost = charge.costMicros;
    return written ? written.then(() => cost) : cost;
  }
}

const GONE: AdmitAnswer<never> = { verdict: 'gone' };
