import assert from 'node:assert/strict';
import { adaptParams, adaptationHeaders, unsupported } from '../../../packages/middleware/src/adapt/index.js';

describe('parameter adaptation (contract §4.3)', () => {
  const table = { temperature: { min: 0, max: 1 }, logit_bias: unsupported };

  it('clamps temperature above the model maximum and reports it as name=requested>applied', () => {
    const { body, adaptation } = adaptParams({ temperature: 1.7 }, table, {}, undefined);
    assert.equal(body.temperature, 1);
    assert.deepEqual(adaptationHeaders(adaptation), { 'x-service-clamped-params': 'temperature=1.7>1' });
  });

  it('drops a parameter the route cannot take and reports it', () => {
    const { body, adaptation } = adaptParams({ logit_bias: { '1': 2 }, top_p: 0.5 }, table, {}, undefined);
    assert.equal('logit_bias' in body, false);
    assert.equal(body.top_p, 0.5);
    assert.deepEqual(adaptationHeaders(adaptation), { 'x-service-dropped-params': 'logit_bias' });
  });

  it('sends neither header when nothing was adapted', () => {
    const { adaptation } = adaptParams({ temperature: 0.3 }, table, {}, undefined);
    assert.deepEqual(adaptationHeaders(adaptation), {});
  });

  it('lets the model config override the provider table and clamps max_tokens to the model output limit', () => {
    const { body, adaptation } = adaptParams({ temperature: 0.9, max_tokens: 99_999, seed: 1 }, table, { temperature: { max: 0.5 }, seed: false }, { fields: ['max_tokens'], max: 8192 });
    assert.equal(body.temperature, 0.5);
    assert.equal(body.max_tokens, 8192);
    assert.deepEqual(adaptationHeaders(adaptation), {
      'x-service-dropped-params': 'seed',
      'x-service-clamped-params': 'temperature=0.9>0.5,max_tokens=99999>8192',
    });
  });

  it('never mutates the body it was given', () => {
    const input = { temperature: 3 };
    adaptParams(input, table, {}, undefined);
    assert.deepEqual(input, { temperature: 3 });
  });
});
