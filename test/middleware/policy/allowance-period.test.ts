import assert from 'node:assert/strict';
import { keptPeriodEnd, nextReset } from '../../../packages/middleware/src/policy/allowance-period.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('when included tokens refill (contract §8 rule 3)', () => {
  const now = at('2026-11-22T10:00:00Z'); // a Sunday

  it('refills at the next calendar day, ISO week and month in UTC', () => {
    assert.equal(iso(nextReset({ period: 'day' }, now)), '2026-11-23T00:00:00.000Z');
    assert.equal(iso(nextReset({ period: 'week' }, now)), '2026-11-23T00:00:00.000Z');
    assert.equal(iso(nextReset({ period: 'week' }, at('2026-11-23T00:00:00Z'))), '2026-11-30T00:00:00.000Z');
    assert.equal(iso(nextReset({ period: 'month' }, now)), '2026-12-01T00:00:00.000Z');
    assert.equal(iso(nextReset({ period: 'month' }, at('2026-12-31T23:59:59Z'))), '2027-01-01T00:00:00.000Z');
  });

  it('refills at a configured instant while it is ahead, then by the period', () => {
    assert.equal(iso(nextReset({ period: 'month', resetAt: '2026-11-25T12:00:00Z' }, now)), '2026-11-25T12:00:00.000Z');
    assert.equal(iso(nextReset({ period: 'day', resetAt: '2026-11-01T12:00:00Z' }, now)), '2026-11-23T00:00:00.000Z');
  });

  it('keeps a passed one-off instant as a monthly cycle, always in the future, never refilling on every request', () => {
    const included = { resetAt: '2026-01-31T08:00:00Z' };
    assert.equal(iso(nextReset(included, at('2026-01-01T00:00:00Z'))), '2026-01-31T08:00:00.000Z');
    assert.equal(iso(nextReset(included, at('2026-01-31T08:00:00Z'))), '2026-02-28T08:00:00.000Z');
    assert.equal(iso(nextReset(included, now)), '2026-11-30T08:00:00.000Z');
    assert.ok(nextReset(included, at('2026-11-30T08:00:00Z')) > at('2026-11-30T08:00:00Z'));
  });
});

describe('a kept period end after the clock ran ahead (clock-steps.test.ts)', () => {
  it('moves an end past the current period back to the current period\'s end, and keeps every end within it', () => {
    // Two hours fast across midnight: the day renewed at 01:00 and was set to end a day later.
    assert.equal(iso(keptPeriodEnd({ period: 'day' }, at('2026-11-24T00:00:00Z'), at('2026-11-22T23:00:00Z'))), '2026-11-23T00:00:00.000Z');
    assert.equal(iso(keptPeriodEnd({ period: 'day' }, at('2026-11-23T00:00:00Z'), at('2026-11-22T23:00:00Z'))), '2026-11-23T00:00:00.000Z');
    assert.equal(iso(keptPeriodEnd({ period: 'week' }, at('2026-12-07T00:00:00Z'), at('2026-11-22T10:00:00Z'))), '2026-11-23T00:00:00.000Z');
    assert.equal(iso(keptPeriodEnd({ period: 'month' }, at('2026-12-01T00:00:00Z'), at('2026-11-01T00:00:00Z'))), '2026-12-01T00:00:00.000Z');
    assert.equal(iso(keptPeriodEnd({ period: 'month' }, at('2027-03-01T00:00:00Z'), at('2026-02-28T12:00:00Z'))), '2026-03-01T00:00:00.000Z');
    // A configured instant years ahead is the period's end itself: kept.
    assert.equal(iso(keptPeriodEnd({ resetAt: '2030-01-01T00:00:00Z' }, at('2030-01-01T00:00:00Z'), at('2026-11-22T10:00:00Z'))), '2030-01-01T00:00:00.000Z');
  });
});
