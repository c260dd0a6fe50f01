import { Cluster, Redis } from 'ioredis';

/** Where Redis is: one server (`store.url`) or the seed nodes of a Redis Cluster (`store.cluster`). */
export type RedisConnection = { url: string; cluster?: undefined } | { cluster: string[]; url?: undefined };

/**
 * A client for one server or a Cluster, not yet connected (`connect()` starts it). With `failFast`
 * (the policy's connection) commands fail at once while Redis is away instead of queueing, so admission
 * answers 503 within its deadline (DESIGN step 7); without it (the subscriber) it simply reconnects.
 * A hung server (SIGSTOPped, a frozen VM) keeps the socket open, so the client would never reconnect: a timed-out
 * command stays in its queue of commands awaiting a reply (and, once the kernel's buffers are full, in the socket's
 * write buffer), an admission and a release per refused request for as long as the stall lasts. So a connection
 * that received nothing for a whole deadline while commands wait (`socketTimeout`) is dropped: what it held is
 * refused at once, and while it reconnects commands fail fast without being queued. The subscriber sends nothing
 * of its own, so its owner pings it (RedisPolicyStore): a ping unanswered within the deadline drops it the same way.
 *
 * @example
 * const redis = connectRedis({ cluster: ['redis://10.0.0.1:7000'] }, { timeoutMs: 1000, failFast: true });
 * await redis.connect();
 */
export function connectRedis(where: RedisConnection, options: { timeoutMs: number; failFast: boolean }): Redis | Cluster {
  const retry = (times: number) => Math.min(times * 100, 1_000);
  const timeouts = options.failFast
    ? { maxRetriesPerRequest: 0, commandTimeout: options.timeoutMs, connectTimeout: options.timeoutMs, socketTimeout: options.timeoutMs }
    : { autoResubscribe: false, maxRetriesPerRequest: null, socketTimeout: options.timeoutMs };
  if (where.cluster) {
    return new Cluster(where.cluster, {
      lazyConnect: true,
      enableOfflineQueue: !options.failFast,
      clusterRetryStrategy: retry,
      // A moved slot is followed at once; a failing-over cluster is retried only within the deadline.
      retryDelayOnFailover: 50,
      retryDelayOnClusterDown: 50,
      redisOptions: timeouts,
    });
  }
  return new Redis(where.url, { lazyConnect: true, enableOfflineQueue: !options.failFast, ...timeouts, retryStrategy: retry });
}
