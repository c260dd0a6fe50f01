// A memory store with tiny snapshot and ledger-file thresholds (so a snapshot or a rotation is nearly
// always under way), settling in 8 parallel loops and printing "ack <n>" once settlement n is acknowledged,
// until the parent SIGKILLs it. Settlement n is recognisable in the ledger by its alias `a<n>`. Plain
// JavaScript over the built package, so it starts fast. Args: dir, first n.
import { parseConfig } from '../../../packages/middleware/dist/config/index.js';
import { KeyRing } from '../../../packages/middleware/dist/auth/index.js';
import { createPolicy } from '../../../packages/middleware/dist/store/index.js';
import { systemClock } from '../../../packages/middleware/dist/runtime-clock.js';

const [dir, firstArg] = process.argv.slice(2);
const { config } = parseConfig({ organizations: { acme: { wallet: 1000 } }, store: { kind: 'memory', file: 'state.json', snapshotAfterBytes: 4096, ledgerFileBytes: 4096 } }, {});
const { policy } = await createPolicy({ config, keys: new KeyRing(), clock: systemClock, baseDir: dir, logger: { error: (m, e) => process.stderr.write(`${m} ${e}\n`) } });
process.stdout.write('ready\n');
let next = Number(firstArg);
const loop = async () => {
  for (;;) {
    const n = next++;
    const admission = await policy.admit({ principal: { keyId: 'k1', org: 'acme', scopes: ['models'] }, alias: `a${n}`, billing: 'wallet', price: { input: 1, output: 2 }, estimatedInputTokens: 0, maxOutputTokens: 100 });
    await admission.settle({ inputTokens: 1 + (n % 7), outputTokens: 1 + (n % 13) });
    process.stdout.write(`ack ${n}\n`);
  }
};
await Promise.all(Array.from({ length: 8 }, loop));
