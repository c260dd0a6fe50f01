import assert from 'node:assert/strict';
import { upgradeSpooledSettlement } from '../../../packages/middleware/src/store/redis-legacy-layout.js';

/** ARGV id … requestId as every layout spooled them (the settle script's 15 first arguments). */
const ARGV_15 = ['s-1', 10, 20, 'wallet', -1, 2_500_000, 10_000_000, 1_000, '', 'acme', 'k1', 'gpt', '', 0, 'req-1'];
const FIVE_KEYS = ['t:{acme}:bal', 't:{acme}:win', 't:{acme}:slots', 't:{acme}:ledger', 't:{acme}:lapsed'];
const TEN_KEYS = [...FIVE_KEYS, 't:{acme}:reservations', 't:{acme}:key:k1:state', 't:{acme}:key:k1:win', 't:{acme}:key:k1:slots', 't:{acme}:key:k1:reservations'];

/** What the settle script reads at ARGV 16–21 (cached written pricePicoCached pricePicoWrite keySecond route). */
const tail = (args: (string | number)[]) => args.slice(10 + 15);

describe('settlements spooled by older versions reach the current settle script with their arguments in place', () => {
  it("keeps i17's cache counts and rates at ARGV 16-19 of a five-key settlement, with no key second or route", () => {
    const upgraded = upgradeSpooledSettlement('t:', { id: 's-1', args: [...FIVE_KEYS, ...ARGV_15, 7, 3, 250_000, 3_125_000] });
    assert.deepEqual(upgraded.args.slice(0, 10), TEN_KEYS);
    assert.deepEqual(upgraded.args.slice(10, 25), ARGV_15);
    assert.deepEqual(tail(upgraded.args), [7, 3, 250_000, 3_125_000, '', '']);
  });

  it('gives a five-key settlement from before cached tokens no cache counts (0) and the input rate', () => {
    const upgraded = upgradeSpooledSettlement('t:', { id: 's-1', args: [...FIVE_KEYS, ...ARGV_15] });
    assert.deepEqual(tail(upgraded.args), [0, 0, '', '', '', '']);
  });

  it("moves the key second and route of a ten-key settlement in i22's first layout behind the cache ARGVs", () => {
    const upgraded = upgradeSpooledSettlement('t:', { id: 's-1', args: [...TEN_KEYS, ...ARGV_15, '1000', 'openai/gpt-4o'] });
    assert.deepEqual(upgraded.args.slice(0, 25), [...TEN_KEYS, ...ARGV_15]);
    assert.deepEqual(tail(upgraded.args), [0, 0, '', '', '1000', 'openai/gpt-4o']);
  });

  it('leaves a settlement spooled in the current layout as it is', () => {
    const current = { id: 's-1', args: [...TEN_KEYS, ...ARGV_15, 7, 3, 250_000, 3_125_000, '1000', 'openai/gpt-4o'] };
    assert.equal(upgradeSpooledSettlement('t:', current), current);
  });
});
