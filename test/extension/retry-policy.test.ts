import assert from 'node:assert/strict';
import { MAX_AUTOMATIC_RETRIES, recoveryAfter } from '../../extension/src/chat/retry-policy.js';

const rateLimited = { title: 'Rate limited', detail: '', action: { kind: 'retry-in', seconds: 7 } as const };

describe('extension: automatic chat retries', () => {
  it('counts down the Retry-After seconds while automatic retries remain, numbering each try', () => {
    assert.deepEqual(recoveryAfter(rateLimited, 0), { kind: 'countdown', seconds: 7, attempt: 1, of: MAX_AUTOMATIC_RETRIES });
    assert.deepEqual(recoveryAfter(rateLimited, 2), { kind: 'countdown', seconds: 7, attempt: 3, of: MAX_AUTOMATIC_RETRIES });
  });

  it(`gives up after ${MAX_AUTOMATIC_RETRIES} automatic retries and leaves Retry to the user`, () => {
    assert.deepEqual(recoveryAfter(rateLimited, MAX_AUTOMATIC_RETRIES), { kind: 'manual', gaveUpAfter: MAX_AUTOMATIC_RETRIES });
  });

  it('never retries by itself what waiting cannot fix', () => {
    assert.deepEqual(recoveryAfter({ title: 'Out of credit', detail: '', action: { kind: 'open-url', label: 'Add credit', url: 'x' } }, 0), { kind: 'manual' });
    assert.deepEqual(recoveryAfter({ title: 'The provider failed', detail: '' }, 0), { kind: 'manual' });
  });
});
