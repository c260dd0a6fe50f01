import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCli } from '../../support/cli-process.js';

/**
 * `tollgate admin ledger --from A --to B` exports [A, B). With the bounds swapped (`--from 2026-12-01 --to
 * 2026-11-01`, an easy slip in a month-end script) or equal, that period holds no instant: the export printed
 * only its header, `--sum` printed `{}` — "no spend at all" — and the command exited 0.
 */
describe('tollgate admin ledger over a period that holds no instant', function () {
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-ledger-empty-period-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ organizations: { acme: { wallet: 5 } }, store: { kind: 'memory', file: 'data/state.json' } }));
    const line = { t: 'settle', id: 'nov-15', at: Date.parse('2026-11-15T12:00:00Z'), org: 'acme', keyId: 'k1', alias: 'gpt-4o', in: 1, out: 1, included: 0, cost: 100 };
    mkdirSync(join(dir, 'data', 'state.json.ledger'), { recursive: true });
    writeFileSync(join(dir, 'data', 'state.json.ledger', '20261101T000000000Z-0001.jsonl'), `${JSON.stringify(line)}\n`);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const [from, to] of [
    ['2026-12-01', '2026-11-01'],
    ['2026-11-01', '2026-11-01'],
    ['2026-11-01T12:00:00+01:00', '2026-11-01T11:00:00Z'],
  ] as const) {
    it(`refuses --from ${from} --to ${to} with exit code 1 instead of summing no spend`, async () => {
      const { code, output } = await adminCli(dir, '--config', 'config.json', 'ledger', '--sum', '--from', from, '--to', to);
      assert.equal(code, 1, `an empty period was summed as no spend:\n${output}`);
      assert.match(output, /--from must be before --to/);
      assert.doesNotMatch(output, /\n\s+at /, 'no stack trace');
    });
  }

  it('still sums a period that holds the settlement', async () => {
    const { code, output } = await adminCli(dir, '--config', 'config.json', 'ledger', '--sum', '--from', '2026-11-01', '--to', '2026-12-01');
    assert.equal(code, 0, output);
    assert.equal((JSON.parse(output) as Record<string, { requests: number }>).acme!.requests, 1);
  });
});
