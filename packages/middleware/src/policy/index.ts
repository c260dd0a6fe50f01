// TEMPORARY seam until the policy issue lands: replaced wholesale by the real store-backed policy.
export type { Policy, Admission, AdmissionRequest, Usage, AdminOperations, UsageReport } from './policy-types.js';
import type { ResolvedConfig } from '../config/index.js';
import type { KeyRing } from '../auth/index.js';
import type { Clock } from '../runtime-clock.js';
import type { AdminOperations, Policy } from './policy-types.js';

export interface PolicyOptions {
  config: ResolvedConfig;
  keys: KeyRing;
  clock: Clock;
  baseDir: string;
}

export async function createPolicy(_options: PolicyOptions): Promise<{ policy: Policy; admin: AdminOperations }> {
  const unavailable = async (): Promise<never> => {
    throw new Error('policy not wired yet');
  };
  return {
    policy: { admit: unavailable, close: async () => {} },
    admin: { topUp: unavailable, setPaymentMethod: unavailable, createKey: unavailable, revokeKey: unavailable, usage: unavailable },
  };
}
