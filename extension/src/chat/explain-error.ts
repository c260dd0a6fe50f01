/** The facts of a failed call that matter to a user: the client's error name and what it carries. */
export interface ErrorFacts {
  name: string;
  message: string;
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** What the user can do about it, rendered as one button or a countdown. */
export type ErrorAction =
  | { kind: 'open-url'; label: string; url: string }
  | { kind: 'retry-in'; seconds: number }
  | { kind: 'wait-until'; at: string }
  | { kind: 'command'; label: string; command: string };

export interface Explanation {
  title: string;
  detail: string;
  action?: ErrorAction;
  /** The reply was cut off: what arrived stays on screen, marked incomplete. */
  incomplete?: boolean;
}

type Explainer = (facts: ErrorFacts) => Explanation;

const setKey: ErrorAction = { kind: 'command', label: 'Set Provider API Key', command: 'tollgate.setProviderApiKey' };
const restart: ErrorAction = { kind: 'command', label: 'Restart Gateway', command: 'tollgate.restartGateway' };

const header = (facts: ErrorFacts, name: string) => facts.headers?.[name];

/**
 * The catalog's errors (contract §7.1) as a user can act on them, keyed by @tollgate/client's error
 * names. Anything unlisted shows Tollgate's own message, which always says what went wrong.
 */
const explainers: Record<string, Explainer> = {
  WalletEmptyError: (facts) => ({
    title: 'Out of credit',
    detail: 'This session has spent its credit, so the request was not sent to the provider.',
    action: { kind: 'open-url', label: 'Add credit', url: header(facts, 'x-service-recovery-url') ?? '' },
  }),
  RateLimitedError: (facts) => ({
    title: 'Rate limited',
    detail: 'Too many requests or tokens this minute. The message is sent again when the countdown ends.',
    action: { kind: 'retry-in', seconds: Math.max(1, Number(header(facts, 'retry-after')) || 5) },
  }),
  AllowanceExhaustedError: (facts) => {
    const at = header(facts, 'x-service-reset-at');
    return {
      title: 'Included tokens used up',
      detail: at ? `The included tokens for this model refill at ${formatTime(at)}.` : 'The included tokens for this model are used up until the period resets.',
      ...(at ? { action: { kind: 'wait-until', at } as const } : {}),
    };
  },
  ModelNotConfiguredError: (facts) => ({
    title: 'Model not set up',
    detail: `${facts.message}. Store the provider's API key to use it.`,
    action: setKey,
  }),
  ModelNotFoundError: (facts) => ({ title: 'Unknown model', detail: `${facts.message}. Pick a model from the list.` }),
  MaxTokensExceededError: (facts) => ({ title: 'Reply limit too high', detail: facts.message }),
  // The gateway's own 401: a provider's 401, relayed (type api_error), is an UpstreamError in @tollgate/client.
  AuthenticationError: () => ({ title: 'Not authorised', detail: 'The in-editor gateway refused its session key. Restart it with "Tollgate: Restart Gateway".', action: restart }),
  UpstreamError: (facts) =>
    facts.status === 401 || facts.status === 403
      ? { title: 'The provider refused the API key', detail: `${facts.message}. Store a valid key for this model's provider.`, action: setKey }
      : { title: 'The provider failed', detail: `${facts.message}. Nothing was charged for the failed attempt; try again.` },
  PolicyUnavailableError: () => ({ title: 'Billing store unavailable', detail: 'The request was not sent because usage could not be recorded. Try again shortly.' }),
  StreamInterruptedError: () => ({ title: 'Reply incomplete', detail: 'The stream broke before the model finished. What arrived is kept above.', incomplete: true }),
  OutcomeUnknownError: () => ({ title: 'No answer', detail: 'The connection to the gateway failed; the request may have run.' }),
};

/** The facts of anything a call threw: a client error carries status, headers and body; anything else its message. */
export function factsOf(error: unknown): ErrorFacts {
  const { name, message, status, headers, body } = error as Partial<ErrorFacts> & { message?: string };
  return { name: name ?? 'Error', message: message ?? String(error), ...(status === undefined ? {} : { status }), headers: headers ?? {}, body };
}

/** @example explainError({ name: 'RateLimitedError', message: '…', headers: { 'retry-after': '7' } }).action // { kind: 'retry-in', seconds: 7 } */
export function explainError(facts: ErrorFacts): Explanation {
  return explainers[facts.name]?.(facts) ?? { title: 'Request failed', detail: facts.message };
}

/** A provider's own 401, relayed with type api_error (contract §2.3), rather than Tollgate refusing the session key. */
function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
