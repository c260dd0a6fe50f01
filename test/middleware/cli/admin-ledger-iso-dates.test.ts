import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../../packages/middleware/dist/cli.js', import.meta.url));

/** The built `tollgate admin …` in `cwd` with the shell's time zone set to `tz`. */
function admin(cwd: string, tz: string, ...args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [CLI, 'admin', ...args], { cwd, env: { ...process.env, TZ: tz }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

/**
 * `tollgate admin ledger --from/--to` promise "an ISO date (2026-11-01) or instant", and the export prints UTC instants.
 * The bounds go through `Date.parse`, which takes far more than ISO and rolls impossible dates over: `2026-02-30` is
 * March 2, `--from 1` is 2001-01-01 in the shell's zone, "Nov 1 2026" and `2026-11-01T00:00` are local time. An
 * operator's month-end script then exports or sums another period than the one it named, with exit code 0.
 */
describe('tollgate admin ledger period bounds', function () {
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-hunt-ledger-dates-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ organizations: { acme: { wallet: 5 } }, store: { kind: 'memory', file: 'data/state.json' } }));
    const at = (iso: string) => Date.parse(iso);
    const lines = [
      { t: 'settle', id: 'feb-28', at: at('2026-02-28T12:00:00Z'), org: 'acme', keyId: 'k1', alias: 'gpt-4o', in: 1, out: 1, included: 0, cost: 100 },
      { t: 'settle', id: 'mar-01', at: at('2026-03-01T12:00:00Z'), org: 'acme', keyId: 'k1', alias: 'gpt-4o', in: 1, out: 1, included: 0, cost: 200 },
      { t: 'settle', id: 'mar-02', at: at('2026-03-02T12:00:00Z'), org: 'acme', keyId: 'k1', alias: 'gpt-4o', in: 1, out: 1, included: 0, cost: 400 },
      { t: 'settle', id: 'oct-31-late', at: at('2026-11-01T02:00:00Z'), org: 'acme', keyId: 'k1', alias: 'gpt-4o', in: 1, out: 1, included: 0, cost: 800 },
      { t: 'settle', id: 'nov-01', at: at('2026-11-01T12:00:00Z'), org: 'acme', keyId: 'k1', alias: 'gpt-4o', in: 1, out: 1, included: 0, cost: 1600 },
    ];
    mkdirSync(join(dir, 'data', 'state.json.ledger'), { recursive: true });
    writeFileSync(join(dir, 'data', 'state.json.ledger', '20260228T000000000Z-0001.jsonl'), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const [flag, value] of [
    ['--to', '2026-02-30'],
    ['--from', '2026-04-31'],
    ['--from', '1'],
    ['--to', 'Nov 1 2026'],
  ] as const) {
    it(`refuses ${flag} ${value} (not an ISO date or instant) with exit code 1 instead of exporting another period`, async () => {
      const { code, output } = await admin(dir, 'America/New_York', '--config', 'config.json', 'ledger', '--sum', flag, value);
      assert.equal(code, 1, `accepted ${flag} ${value}:\n${output}`);
      assert.match(output, new RegExp(`${flag} must be an ISO date or instant`));
    });
  }

  it('reads an instant without a zone the same in every shell time zone as the UTC instants it prints (or refuses it)', async () => {
    const utc = await admin(dir, 'UTC', '--config', 'config.json', 'ledger', '--format', 'jsonl', '--from', '2026-11-01T00:00');
    assert.equal(utc.code, 0, utc.output);
    const elsewhere = await admin(dir, 'America/New_York', '--config', 'config.json', 'ledger', '--format', 'jsonl', '--from', '2026-11-01T00:00');
    if (elsewhere.code === 1) assert.match(elsewhere.output, /--from must be/);
    else assert.equal(elsewhere.output, utc.output, 'the same command exports other settlements depending on the shell\'s TZ');
  });
});
