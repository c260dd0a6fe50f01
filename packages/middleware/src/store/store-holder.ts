import type { AdminOperations } from '../policy/policy-types.js';

/** The content of a memory store's lock file: who holds the store and how to reach its admin channel. */
export interface StoreHolder {
  pid: number;
  role: 'server' | 'admin';
  /** The admin channel's port on 127.0.0.1. */
  port: number;
  /** Bearer token of the admin channel; the lock file is 0600, so reading it proves being the store's user. */
  token: string;
  /** ISO instant the lock was taken. */
  since: string;
}

/** The operations the admin channel runs: exactly those of `gate.admin`. */
export const ADMIN_OPERATIONS = ['topUp', 'setPaymentMethod', 'createKey', 'revokeKey', 'usage'] as const satisfies readonly (keyof AdminOperations)[];

export function isAdminOperation(op: unknown): op is keyof AdminOperations {
  return (ADMIN_OPERATIONS as readonly unknown[]).includes(op);
}
