export type { Policy, Admission, AdmissionRequest, Soon, Usage, Price, AdminOperations, UsageReport } from './policy-types.js';
export type { RateLimitState, WindowState } from './rate-limit-state.js';
export { usdToMicros, microsToUsd, costMicros, billedTokens } from './money.js';
export type { PolicyBackend, AdmitAnswer, Admitted, Refusal, SettlementRetries, PendingSpool } from './policy-backend.js';
export { PolicyOverBackend } from './policy-over-backend.js';
export { denials } from './denials.js';
export { InProcessBackend, type PolicyState, type InProcessTicket } from './in-process-backend.js';
