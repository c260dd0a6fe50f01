import { RedisServer } from '../../support/redis-server.js';
import { describeLimitEdges } from './limit-edges.js';

// The same edges on a Redis Cluster run in `npm run test:slow` (limit-edges-cluster.slow.ts).
describeLimitEdges({ name: 'memory store', instances: 1, store: () => ({ kind: 'memory' }) });

describe('with Redis', function () {
  let redis: RedisServer;
  before(async () => {
    redis = await RedisServer.start();
  });
  after(() => redis.close());
  describeLimitEdges({ name: 'two instances sharing one Redis', instances: 2, store: () => ({ kind: 'redis', url: redis.url, prefix: `e${Math.random().toString(36).slice(2)}:`, ledger: false }) });
});
