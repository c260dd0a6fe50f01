import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { tollgate, type ConfigInput, type Tollgate } from '@tollgate/middleware';
import { ConfigError, parseConfig } from '../../../packages/middleware/src/config/index.js';
import { ServiceError } from '../../../packages/middleware/src/errors/index.js';
import { RedisServer } from '../../support/redis-server.js';

const quiet = { info() {}, error() {} };

async function refusal(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  assert.fail('expected a refusal');
}

interface StoreUnderTest {
  name: string;
  store: () => ConfigInput['store'];
  /** Ledger lines of admin changes (top-ups, payment methods), in order. */
  adminLedger: () => Promise<string[]>;
}

describe('admin operations refuse bad arguments and change nothing', function () {
  let dir: string;
  let redis: RedisServer;
  let prefix = '';
  let gate: Tollgate | undefined;
  before(async () => {
    redis = await RedisServer.start();
  });
  after(() => redis.close());
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-admin-edges-'));
    prefix = `edges${Math.random().toString(36).slice(2)}:`;
  });
  afterEach(async () => {
    await gate?.close();
    gate = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const open = (store: ConfigInput['store'], wallet = 1) => {
    gate = tollgate({ organizations: { acme: { wallet } }, store }, { baseDir: dir, logger: quiet });
    return gate.admin;
  };

  const stores: StoreUnderTest[] = [
    {
      name: 'memory',
      store: () => ({ kind: 'memory', file: 'state.json' }),
      // Admin changes are lines of the journal since the snapshot (`state.json.journal.<n>`).
      adminLedger: async () =>
        readdirSync(dir)
          .filter((name) => name.startsWith('state.json.journal.'))
          .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n'))
          .filter((line) => /"t":"(topup|payment|key|revoke)"/.test(line)),
    },
    {
      name: 'redis',
      store: () => ({ kind: 'redis', url: redis.url, prefix }),
      adminLedger: async () => {
        const client = new Redis(redis.url);
        const entries = await client.xrange(`${prefix}{acme}:changes`, '-', '+');
        client.disconnect();
        return entries.map(([, fields]) => fields.join(' ')).filter((line) => !line.startsWith('t settle'));
      },
    },
  ];

  for (const { name, store, adminLedger } of stores) {
    describe(name, () => {
      it('refuses top-ups that are not a positive safe number of micro-dollars: 1e308, Infinity, NaN, 0, -1, 1e-7, "5"', async () => {
        const admin = open(store());
        for (const usd of [1e308, Infinity, Number.NaN, 0, -1, 1e-7, '5' as unknown as number, 9.1e9]) {
          const error = await refusal(admin.topUp('acme', usd));
          assert.equal(error.kind, 'invalid_request', String(usd));
          assert.match(error.message, /A top-up must be a positive amount of USD/);
        }
        assert.equal((await admin.usage('acme')).wallet, 1);
        assert.deepEqual(await adminLedger(), [], 'no ledger entry without its balance change');
      });

      it('refuses a top-up that would carry the wallet past an exact amount, and keeps the balance', async () => {
        const admin = open(store(), 9_000_000_000);
        const error = await refusal(admin.topUp('acme', 8_000_000));
        assert.match(error.message, /would take the wallet of "acme" above USD 9007199254; nothing was changed/);
        assert.equal((await admin.usage('acme')).wallet, 9_000_000_000);
        assert.deepEqual(await adminLedger(), []);
        assert.deepEqual(await admin.topUp('acme', 0.25), { wallet: 9_000_000_000.25 });
        assert.equal((await adminLedger()).length, 1);
      });

      it('lets only one of two simultaneous top-ups through when together they would pass the bound', async () => {
        const admin = open(store(), 0);
        const outcomes = await Promise.allSettled([admin.topUp('acme', 5_000_000_000), admin.topUp('acme', 5_000_000_000)]);
        assert.deepEqual(outcomes.map((outcome) => outcome.status).sort(), ['fulfilled', 'rejected']);
        assert.equal((await admin.usage('acme')).wallet, 5_000_000_000);
        assert.equal((await adminLedger()).length, 1);
      });

      it('refuses organization names outside the rule, prototype names included, for every operation', async () => {
        const admin = open(store());
        for (const org of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '', 'acme\n', 'a\u0000b', 'x'.repeat(65), '-acme']) {
          for (const attempt of [admin.topUp(org, 1), admin.setPaymentMethod(org, true), admin.createKey(org), admin.usage(org)]) {
            const error = await refusal(attempt);
            assert.equal(error.kind, 'invalid_request', JSON.stringify(org));
            assert.match(error.message, /organization/i);
          }
        }
        assert.deepEqual(await adminLedger(), []);
        assert.equal((await admin.usage('acme')).wallet, 1);
      });

      it('refuses keys with scopes other than models and sql, and a payment method that is not a boolean', async () => {
        const admin = open(store());
        assert.match((await refusal(admin.createKey('acme', ['admin'] as never))).message, /Key scopes are a non-empty list/);
        assert.match((await refusal(admin.createKey('acme', []))).message, /Key scopes are a non-empty list/);
        assert.match((await refusal(admin.setPaymentMethod('acme', 'yes' as never))).message, /on \(true\) or off \(false\)/);
        assert.equal((await admin.usage('acme')).paymentMethod, false);
        assert.deepEqual(await adminLedger(), []);
      });
    });
  }

  it('keeps a memory-store balance after a restart once a 1e308 top-up was refused', async () => {
    const store = { kind: 'memory' as const, file: 'state.json' };
    await refusal(open(store, 4).topUp('acme', 1e308));
    await gate!.close();
    assert.equal((await open(store, 0).usage('acme')).wallet, 4);
  });

  it('refuses a config whose organization names break the rule, prototype names included', () => {
    for (const json of ['{"organizations": {"__proto__": {"wallet": 5}}}', '{"organizations": {"toString": {}}}', '{"organizations": {"constructor": {}}}', '{"organizations": {"a b": {}}}']) {
      assert.throws(() => parseConfig(JSON.parse(json), {}), (error: unknown) => error instanceof ConfigError && /organization/.test(error.message), json);
    }
    assert.throws(() => parseConfig({ keys: [{ key: 'k'.repeat(20) + '0123456789abcdef', org: 'toString' }] }, {}), /keys\.0\.org: organization name "toString" is reserved/);
    assert.throws(() => parseConfig({ organizations: { acme: { wallet: 1e300 } } }, {}), /organizations\.acme\.wallet/);
  });
});
