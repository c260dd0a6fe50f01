import assert from 'node:assert/strict';
import { nextReset } from '../../../packages/middleware/src/policy/allowance-period.js';

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
