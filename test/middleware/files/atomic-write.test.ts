import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExclusive, writeFileAtomic } from '../../../packages/middleware/src/files/index.js';

describe('writeFileAtomic', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tollgate-atomic-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('does not follow a symlink planted at the temporary name it used to use, and leaves no temporary behind', async () => {
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious');
    // The name the old code used: `.<file>.<pid>.tmp`, predictable by anyone who can list processes.
    symlinkSync(victim, join(dir, `.pending.jsonl.${process.pid}.tmp`));
    await writeFileAtomic(join(dir, 'pending.jsonl'), Buffer.from('new content'));
    assert.equal(readFileSync(victim, 'utf8'), 'precious');
    assert.equal(readFileSync(join(dir, 'pending.jsonl'), 'utf8'), 'new content');
    assert.equal(statSync(join(dir, 'pending.jsonl')).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir).sort(), [`.pending.jsonl.${process.pid}.tmp`, 'pending.jsonl', 'victim.txt']);
  });

  it('creates files exclusively: an existing name, a symlink included, fails instead of being written through', async () => {
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious');
    symlinkSync(victim, join(dir, 'planted'));
    await assert.rejects(createExclusive(join(dir, 'planted')), { code: 'EEXIST' });
    assert.equal(readFileSync(victim, 'utf8'), 'precious');
    assert.ok(lstatSync(join(dir, 'planted')).isSymbolicLink());
  });
});
