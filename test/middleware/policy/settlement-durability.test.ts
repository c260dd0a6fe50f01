import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tollgate } from '@tollgate/middleware';
import { readLedger } from '../../../packages/middleware/src/store/index.js';
import { startFakeOpenAI } from '../../fakes/index.js';

describe('settlements survive SIGKILL (memory store with a journal file)', () => {
  let dir: string;
  let openai: Awaited<ReturnType<typeof startFakeOpenAI>>;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-ledger-'));
    openai = await startFakeOpenAI();
  });
  afterEach(async () => {
    await openai.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses no charge of a completed response, and balance and ledger agree after restart', async () => {
    const child = fork(fileURLToPath(new URL('./settlement-durability-child.ts', import.meta.url)), [dir, openai.baseUrl], { execArgv: ['--conditions=tollgate-source', '--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const { url } = await new Promise<{ url: string }>((resolve) => child.once('message', (m) => resolve(m as { url: string })));
    let completed = 0;
    const client = async () => {
      while (true) {
        try {
          const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer tg-settle-key-0001-0123456789abcdef' }, body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'one two three' }] }) });
          await response.json();
          if (response.status === 200) completed++;
        } catch {
          return;
        }
      }
    };
    const clients = Array.from({ length: 8 }, client);
    while (completed < 100) await new Promise((resolve) => setTimeout(resolve, 5));
    child.kill('SIGKILL');
    await Promise.all(clients);

    const ledger = async () => {
      const lines: { cost: number }[] = [];
      for await (const line of readLedger(join(dir, 'state.json.ledger'), {})) lines.push(line);
      return lines;
    };
    // Every completed response's charge is in the ledger already, before any restart.
    assert.ok((await ledger()).length >= completed, `${completed} responses completed, ${(await ledger()).length} charges on file`);

    // The restart appends to the ledger what the kill left in the journal only (settled, not yet acknowledged).
    const gate = tollgate({ keys: [], organizations: { acme: { wallet: 100 } }, store: { kind: 'memory', file: 'state.json' } }, { baseDir: dir });
    const usage = await gate.admin.usage('acme');
    await gate.close();
    const settlements = await ledger();
    const charged = settlements.reduce((sum, entry) => sum + entry.cost, 0);
    assert.equal(usage.requests, settlements.length);
    assert.equal(Math.round((100 - usage.wallet) * 1e6), charged, 'balance change equals the ledger sum');
  });
});
