import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Journal, StoreDamagedError } from '../../../packages/middleware/src/store/index.js';

describe('the policy journal (append-only, fsynced, group commit)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-journal-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every acknowledged record, in order, across a reopen', async () => {
    const file = join(dir, 'nested', 'state.json');
    const journal = Journal.open<{ n: number }>(file);
    await Promise.all(Array.from({ length: 500 }, (_, n) => journal.append({ n })));
    await journal.close();
    const reopened = Journal.open<{ n: number }>(file);
    assert.deepEqual(reopened.records.map((r) => r.n), Array.from({ length: 500 }, (_, n) => n));
    await reopened.close();
  });

  it('refuses a damaged line before the last with a message naming the file and line, leaving the file as it was', async () => {
    const file = join(dir, 'pending.jsonl');
    const first = Journal.open<{ n: number }>(file);
    await first.append({ n: 1 });
    await first.close();
    appendFileSync(file, '\u0000\u0000garbage\n{"n":3}\n');
    const before = readFileSync(file);
    assert.throws(() => Journal.open(file), (error: Error) => error instanceof StoreDamagedError && error.message.startsWith(`${file}: line 2 is not JSON`));
    assert.deepEqual(readFileSync(file), before);
  });

  it('drops a line torn by a crash (never acknowledged) and appends cleanly after it', async () => {
    const file = join(dir, 'state.json');
    const first = Journal.open<{ n: number }>(file);
    await first.append({ n: 1 });
    await first.close();
    appendFileSync(file, '{"n":2,"tor');
    const second = Journal.open<{ n: number }>(file);
    assert.deepEqual(second.records, [{ n: 1 }]);
    await second.append({ n: 3 });
    await second.close();
    assert.equal(readFileSync(file, 'utf8'), '{"n":1}\n{"n":3}\n');
  });
});
