import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCli } from '../../support/cli-process.js';
import { RedisServer } from '../../support/redis-server.js';

/**
 * An operator runs `tollgate admin …` while the Redis store is down or hung. The command cannot do its work, but
 * it must say so the way every other admin failure does: one clear line naming the store, exit code 1, no stack
 * trace (and nothing of ioredis's internals like "enableOfflineQueue").
 */
describe('tollgate admin with the Redis store unreachable', function () {
  this.timeout(20_000);
  let dir: string;
  let redis: RedisServer;
  before(async () => {
    redis = await RedisServer.start();
  });
  after(() => redis.close());
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-hunt-redis-down-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ organizations: { acme: { wallet: 3 } }, store: { kind: 'redis', url: redis.url, prefix: `hunt-down-${Date.now()}:` } }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const state of ['stopped', 'hung'] as const) {
    it(`answers every admin command with one clear line and exit code 1 when Redis is ${state}, never a stack trace`, async () => {
      if (state === 'stopped') await redis.stop();
      else redis.pause();
      try {
        // Every command when Redis refuses connections; a hung Redis makes each wait for its timeouts, so two of them.
        const commands = [['usage', 'acme'], ['topup', 'acme', '1'], ['payment-method', 'acme', 'on'], ['keys', 'create', 'acme'], ['keys', 'revoke', 'key_0123456789abcdef']];
        for (const args of state === 'stopped' ? commands : commands.slice(0, 2)) {
          const { code, output } = await adminCli(dir, '--config', 'config.json', ...args);
          assert.equal(code, 1, `${args.join(' ')}: ${output}`);
          assert.doesNotMatch(output, /\n\s+at /, `${args.join(' ')}: no stack trace:\n${output}`);
          assert.doesNotMatch(output, /enableOfflineQueue|Node\.js v/, `${args.join(' ')}: no client internals:\n${output}`);
          assert.match(output, /Redis/, `${args.join(' ')}: names the store that did not answer:\n${output}`);
        }
      } finally {
        if (state === 'stopped') await redis.restart();
        else redis.resume();
      }
    });
  }
});
