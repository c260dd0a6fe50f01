import assert from 'node:assert/strict';
import pg from 'pg';
import { assertPgClientQueue } from '../../../packages/middleware/src/sql/postgres-exchange.js';

describe('the postgres kind and the pg it runs on', () => {
  it('starts on the installed pg, whose Client has the queue its exchanges are queued on', () => {
    assert.doesNotThrow(() => assertPgClientQueue(pg.Client));
  });

  it('refuses at start-up, naming the pg version it needs, a pg whose Client queues queries differently', () => {
    class RenamedQueue {
      queue: unknown[] = [];
      _queryable = true;
      pulse(): void {}
    }
    assert.throws(() => assertPgClientQueue(RenamedQueue), /install pg 8/);
  });
});
