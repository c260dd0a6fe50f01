import { RedisCluster } from '../../support/redis-cluster.js';
import { describeLimitEdges } from './limit-edges.js';

describe('with a Redis Cluster of three nodes', function () {
  this.timeout(60_000);
  let cluster: RedisCluster;
  before(async () => {
    cluster = await RedisCluster.start();
  });
  after(() => cluster?.close());
  describeLimitEdges({ name: 'two instances on one Redis Cluster', instances: 2, store: () => ({ kind: 'redis', cluster: cluster.urls, prefix: `c${Math.random().toString(36).slice(2)}:`, ledger: false }) });
});
