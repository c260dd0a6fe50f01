// Runs under `ulimit -f` (see ledger-write-failure.test.ts): one admission and settlement on a memory store
// whose journal or ledger file is already past the size limit, so the settlement's line cannot be written there. Plain
// JavaScript over the built package, so nothing else this process does writes files.
import { parseConfig } from '../../../packages/middleware/dist/config/index.js';
import { KeyRing } from '../../../packages/middleware/dist/auth/index.js';
import { createPolicy } from '../../../packages/middleware/dist/store/index.js';
import { systemClock } from '../../../packages/middleware/dist/runtime-clock.js';

process.on('SIGXFSZ', () => {}); // a write past the limit then fails with EFBIG instead of killing the process
const dir = process.argv[2];
const { config } = parseConfig({ organizations: { acme: { wallet: 10 } }, store: { kind: 'memory', file: 'state.json' } }, {});
const logged = [];
const { policy, admin } = await createPolicy({ config, keys: new KeyRing(), clock: systemClock, baseDir: dir, logger: { error: (message, error) => logged.push(`${message} (${error?.code})`) } });
const admission = await policy.admit({ principal: { keyId: 'k1', org: 'acme', scopes: ['models'] }, alias: 'gpt', billing: 'wallet', price: { input: 1, output: 2 }, estimatedInputTokens: 10, maxOutputTokens: 100 });
await admission.settle({ inputTokens: 1_000_000, outputTokens: 1_000_000 });
console.log(JSON.stringify({ logged, usage: await admin.usage('acme') }));
await policy.close();
