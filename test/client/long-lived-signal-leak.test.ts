import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { TollgateClient } from '@tollgate/client';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * A host passes one long-lived AbortSignal (its shutdown signal, a server-wide controller) to every call: the
 * usual pattern. The client combines it per attempt with `AbortSignal.any([signal, AbortSignal.timeout()])`; on
 * Node 20 (engines: >=20.18) every such combination leaves an entry in the long-lived signal's dependant set that
 * is never removed, so the host's memory grows with each call for as long as the process runs.
 */
describe('@tollgate/client: calls sharing one long-lived AbortSignal', () => {
  let server: Server;
  let url: string;
  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"type":"ok","context":{"db":"main"}}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  async function heapAfter(calls: number, tg: TollgateClient, signal: AbortSignal): Promise<number> {
    for (let i = 0; i < calls; i += 4) await Promise.all([0, 1, 2, 3].map(() => tg.sql('SELECT 1', { signal })));
    await new Promise((resolve) => setTimeout(resolve, 50));
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  }

  it('keeps no memory per finished call on the caller\'s signal', async function () {
    this.timeout(30_000);
    const tg = new TollgateClient({ baseUrl: url, apiKey: 'k' });
    const shutdown = new AbortController();
    const base = await heapAfter(2_000, tg, shutdown.signal); // warm-up: sockets, JIT, pools
    const after = await heapAfter(40_000, tg, shutdown.signal);
    const perCall = (after - base) / 40_000;
    // The internal set Node 20 keeps on the source signal, when it has one: one entry per call is the leak.
    const dependants = Object.getOwnPropertySymbols(shutdown.signal).find((s) => s.description === 'kDependantSignals');
    const kept = dependants ? ((shutdown.signal as unknown as Record<symbol, Set<unknown>>)[dependants]?.size ?? 0) : 0;
    assert.ok(kept < 1_000, `the caller's signal holds ${kept} entries after 42,000 finished calls`);
    assert.ok(perCall < 25, `the heap grew ${Math.round(after - base)} bytes over 40,000 finished calls (${perCall.toFixed(1)} B a call)`);
  });
});
