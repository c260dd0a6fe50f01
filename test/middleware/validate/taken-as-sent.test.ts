import assert from 'node:assert/strict';
import { z } from 'zod';
import { takenAsSentCheck } from '../../../packages/middleware/src/validate/index.js';
import { chatCompletionsBody } from '../../../packages/middleware/src/wire/index.js';

/** zod's answer for a value the check passed: accepted, and equal to it but for key order. */
function assertZodAgrees(schema: z.ZodType, value: unknown): void {
  const parsed = schema.safeParse(value);
  assert.ok(parsed.success, `zod refused what the check passed: ${JSON.stringify(value)}`);
  assert.deepEqual(parsed.data, value);
}

/** A small seeded generator (mulberry32): the same cases on every run. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('takenAsSentCheck', () => {
  const chat = takenAsSentCheck(chatCompletionsBody)!;

  it('compiles the chat completion schema and passes the bodies clients send', () => {
    const bodies = [
      { model: 'gpt', messages: [{ role: 'user', content: 'hi' }] },
      {
        model: 'gpt',
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 100,
        temperature: 0.2,
        stop: ['END'],
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'hi' }] },
          { role: 'assistant', content: null, tool_calls: [{ id: '1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: '1', content: 'ok' },
        ],
        x_vendor: { anything: [1, 2] },
      },
    ];
    for (const body of bodies) {
      assert.equal(chat(body), true, JSON.stringify(body));
      assertZodAgrees(chatCompletionsBody, body);
    }
  });

  it('leaves to zod every body zod refuses, and one with an own "__proto__" at a level zod copies', () => {
    const refused = [
      null,
      [],
      'text',
      { messages: [{ role: 'user' }] },
      { model: 'gpt', messages: [] },
      { model: 'gpt', messages: [{ role: 'robot' }] },
      { model: 'gpt', messages: [{ role: 'user' }], max_tokens: 0 },
      { model: 'gpt', messages: [{ role: 'user' }], max_tokens: 2.5 },
      { model: 'gpt', messages: [{ role: 'user' }], n: 2 ** 53 },
      { model: 'gpt', messages: [{ role: 'user' }], temperature: Infinity },
      { model: 'gpt', messages: [{ role: 'user', tool_calls: [{ id: '1', type: 'tool', function: { name: 'f', arguments: '' } }] }] },
      // A hole reads as undefined, which a message is not.
      // eslint-disable-next-line no-sparse-arrays
      { model: 'gpt', messages: [{ role: 'user' }, , { role: 'user' }] },
    ];
    for (const body of refused) {
      assert.equal(chat(body), false, JSON.stringify(body));
      assert.equal(chatCompletionsBody.safeParse(body).success, false, JSON.stringify(body));
    }
    for (const text of ['{"model":"gpt","__proto__":{"x":1},"messages":[{"role":"user"}]}', '{"model":"gpt","messages":[{"role":"user","__proto__":{"x":1}}]}']) {
      assert.equal(chat(JSON.parse(text)), false, text);
    }
    // Below a level zod copies, the value is passed on as it is by both.
    assert.equal(chat(JSON.parse('{"model":"gpt","messages":[{"role":"user"}],"x":{"__proto__":{"x":1}}}')), true);
  });

  it('takes the first option of a union that accepts, so a stripping object before a loose one goes to zod', () => {
    const schema = z.union([z.object({ a: z.number() }), z.looseObject({ a: z.number(), b: z.number() })]);
    const check = takenAsSentCheck(schema)!;
    assert.equal(check({ a: 1, b: 2 }), false, 'zod strips b here: the value is not zod’s answer');
    assert.equal(check({ a: 1 }), true);
    assert.equal(check({ b: 2 }), false);
    const strict = takenAsSentCheck(z.strictObject({ a: z.string() }))!;
    assert.equal(strict({ a: 'x' }), true);
    assert.equal(strict({ a: 'x', b: 1 }), false);
  });

  it('compiles nothing for a schema with a kind or check it does not know, leaving it all to zod', () => {
    assert.equal(takenAsSentCheck(z.object({ a: z.string().min(1) })), undefined);
    assert.equal(takenAsSentCheck(z.object({ a: z.string().default('x') })), undefined);
    assert.equal(takenAsSentCheck(z.object({ a: z.string() }).refine(() => true)), undefined);
    assert.equal(takenAsSentCheck(z.object({ a: z.string().transform((s) => s.length) })), undefined);
    assert.equal(takenAsSentCheck(z.object({ toString: z.string().optional() })), undefined);
  });

  it('agrees with zod on 20,000 seeded variations of a chat body: what it passes, zod accepts and returns unchanged', () => {
    const random = seeded(19);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
    const scalars = [undefined, null, 0, -1, 1, 1.5, 2 ** 53, NaN, '', 'x', true, false, [], {}, ['x'], [1]];
    const fields = ['model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'temperature', 'n', 'stop', 'tools', 'x_other'];
    const messageFields = ['role', 'content', 'name', 'tool_call_id', 'tool_calls', 'x_other'];
    const roles = ['user', 'system', 'tool', 'robot'];
    let passed = 0;
    for (let round = 0; round < 20_000; round++) {
      const body: Record<string, unknown> = { model: 'gpt', messages: [{ role: 'user', content: 'hi' }] };
      for (let edits = Math.floor(random() * 3); edits >= 0; edits--) {
        const field = pick(fields);
        if (random() < 0.3) delete body[field];
        else if (field === 'messages') body.messages = Array.from({ length: Math.floor(random() * 3) }, () => message());
        else body[field] = pick(scalars);
      }
      if (chat(body)) {
        passed++;
        assertZodAgrees(chatCompletionsBody, body);
      } else assert.equal(chatCompletionsBody.safeParse(body).success, false, JSON.stringify(body));
    }
    assert.ok(passed > 1_000, `only ${passed} bodies passed: the fuzz tests too little`);

    function message(): unknown {
      if (random() < 0.1) return pick(scalars);
      const one: Record<string, unknown> = { role: pick(roles) };
      for (let edits = Math.floor(random() * 3); edits > 0; edits--) {
        const field = pick(messageFields);
        one[field] = field === 'content' && random() < 0.5 ? [{ type: 'text', text: 'x' }] : field === 'role' ? pick(roles) : pick(scalars);
      }
      return one;
    }
  });
});
