export type { Policy, Admission, AdmissionRequest, Usage, Price, AdminOperations, UsageReport } from './policy-types.js';
export type { RateLimitState, WindowState } from './rate-limit-state.js';
export { usdToMicros, microsToUsd, costMicros, billedTokens } from './money.js';
