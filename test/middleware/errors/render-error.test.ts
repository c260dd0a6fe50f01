import assert from 'node:assert/strict';
import { ServiceError, renderError } from '../../../packages/middleware/src/errors/index.js';

/** The §7.2 denial headers of a rendering: everything but `x-should-retry`, which every error carries. */
function denial(headers: Record<string, string>): Record<string, string> {
  const { 'x-should-retry': _retry, ...rest } = headers;
  return rest;
}

describe('error envelopes (contract §2.3, §7.2)', () => {
  it('renders model_not_found as shape 1 with X-Service-Reason unknown_model', () => {
    const { status, headers, body } = renderError(new ServiceError('model_not_found', 'no such model', { param: 'model' }), 'openai');
    assert.equal(status, 404);
    assert.deepEqual(denial(headers), { 'x-service-reason': 'unknown_model' });
    assert.deepEqual(body, { error: { message: 'no such model', type: 'invalid_request_error', param: 'model', code: 'model_not_found' } });
  });

  it('renders every /v1/messages error in the Anthropic envelope with no code and no denial headers', () => {
    const { status, headers, body } = renderError(new ServiceError('rate_limited', 'slow down', { retryAfterSeconds: 3 }), 'anthropic');
    assert.equal(status, 429);
    assert.deepEqual(denial(headers), {});
    assert.deepEqual(body, { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } });
  });

  it('turns the denial headers on for /v1/messages when the config switch asks for them', () => {
    const { headers } = renderError(new ServiceError('rate_limited', 'slow down', { retryAfterSeconds: 0.2 }), 'anthropic', { anthropicDenialHeaders: true });
    assert.deepEqual(denial(headers), { 'x-service-reason': 'rate_limited', 'retry-after': '1' });
  });

  it('sends Retry-After only on rate_limited, and the reset instant only on included_allowance_exhausted', () => {
    const resetAt = new Date('2026-12-01T00:00:00Z');
    const exhausted = renderError(new ServiceError('included_allowance_exhausted', 'used up', { resetAt }), 'openai');
    assert.deepEqual(denial(exhausted.headers), { 'x-service-reason': 'included_allowance_exhausted', 'x-service-reset-at': '2026-12-01T00:00:00.000Z' });
    const wallet = renderError(new ServiceError('wallet_empty', 'empty', { recoveryUrl: '/console/billing' }), 'openai');
    assert.deepEqual(denial(wallet.headers), { 'x-service-reason': 'wallet_empty', 'x-service-recovery-url': '/console/billing' });
  });

  it('sends no denial headers with max_tokens_exceeded or model_not_configured', () => {
    for (const kind of ['max_tokens_exceeded', 'model_not_configured'] as const) {
      assert.deepEqual(denial(renderError(new ServiceError(kind, 'x'), 'openai').headers), {});
    }
  });

  it('answers 401 with a small detail body, no code, and WWW-Authenticate on every family', () => {
    for (const family of ['openai', 'anthropic', 'embeddings', 'sql'] as const) {
      const { status, headers, body } = renderError(new ServiceError('unauthorized', 'bad key'), family);
      assert.equal(status, 401);
      assert.deepEqual(body, { detail: 'bad key' });
      assert.ok(headers['www-authenticate']);
    }
  });

  it('hides the message of an internal error behind a detail body', () => {
    const { status, body } = renderError(ServiceError.from(new Error('secret stack')), 'openai');
    assert.equal(status, 500);
    assert.deepEqual(body, { detail: 'Internal server error' });
  });

  it('answers internal errors on /v1/embeddings as an error object of type internal_error and relays upstream bodies verbatim', () => {
    assert.deepEqual(renderError(ServiceError.from(new Error('x')), 'embeddings').body, { error: { message: 'Internal server error', type: 'internal_error', param: null, code: null } });
    const upstreamBody = { error: { message: 'bad input', type: 'invalid_request_error', param: 'input', code: null } };
    assert.deepEqual(renderError(new ServiceError('upstream_error', 'bad input', { status: 400, upstreamBody }), 'embeddings').body, upstreamBody);
  });

  it('relays an upstream error with type api_error, the provider message and its status', () => {
    const { status, body } = renderError(new ServiceError('upstream_error', 'Overloaded', { status: 529 }), 'openai');
    assert.equal(status, 529);
    assert.equal((body as { error: { type: string; message: string } }).error.type, 'api_error');
    assert.equal((body as { error: { message: string } }).error.message, 'Overloaded');
  });

  it('tells clients with x-should-retry which errors to send again (contract §7.3), on every family', () => {
    const cases: [ServiceError, 'true' | 'false'][] = [
      [new ServiceError('included_allowance_exhausted', 'used up'), 'false'],
      [new ServiceError('wallet_empty', 'empty'), 'false'],
      [new ServiceError('unauthorized', 'bad key'), 'false'],
      [new ServiceError('model_not_found', 'no'), 'false'],
      [new ServiceError('validation_failed', 'bad', { detail: [] }), 'false'],
      [new ServiceError('max_tokens_exceeded', 'too many'), 'false'],
      [new ServiceError('upstream_error', 'bad request', { status: 400 }), 'false'],
      [new ServiceError('rate_limited', 'slow down'), 'true'],
      [new ServiceError('policy_unavailable', 'later'), 'true'],
      [new ServiceError('upstream_error', 'Overloaded', { status: 529 }), 'true'],
      [new ServiceError('upstream_error', 'busy', { status: 429 }), 'true'],
      [new ServiceError('upstream_unreachable', 'down'), 'true'],
      [ServiceError.from(new Error('bug')), 'true'],
      [new ServiceError('sql_error', 'rolled back', { status: 503, code: 'rolled_back' }), 'true'],
      [new ServiceError('sql_error', 'syntax', { code: 'syntax_error' }), 'false'],
    ];
    for (const family of ['openai', 'anthropic', 'embeddings', 'sql'] as const) {
      for (const [error, expected] of cases) assert.equal(renderError(error, family).headers['x-should-retry'], expected, `${error.kind} ${error.status} on ${family}`);
    }
  });
});
