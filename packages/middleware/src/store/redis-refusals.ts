import { ReplyError } from 'ioredis';

/**
 * Error replies of a Redis that is there but cannot take a write for now: out of memory under `noeviction`, a
 * replica (the URL still names a primary that failed over), loading its data, a failed background save
 * (`stop-writes-on-bgsave-error`), too few replicas (`min-replicas-to-write`), a busy script, a Cluster failing over.
 */
const PASSING_REPLIES = new Set(['OOM', 'READONLY', 'LOADING', 'MISCONF', 'NOREPLICAS', 'MASTERDOWN', 'BUSY', 'CLUSTERDOWN', 'TRYAGAIN']);

/**
 * Whether a failure passes by itself once Redis is healthy: no reply (unreachable, hung, closed) or one of
 * PASSING_REPLIES (each command's, for a transaction Redis discarded: EXECABORT). Another reply (WRONGTYPE under the
 * prefix, an unknown command) would refuse every request alike.
 *
 * @example
 * passesByItself(new ReplyError('READONLY You can\'t write against a read only replica.')) // true
 */
export function passesByItself(error: unknown): boolean {
  if (!(error instanceof ReplyError)) return true;
  const replies = (error as { previousErrors?: unknown[] }).previousErrors ?? [error];
  return replies.length > 0 && replies.every((reply) => reply instanceof Error && PASSING_REPLIES.has(reply.message.split(' ', 1)[0]!));
}
