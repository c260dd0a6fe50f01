// A process that dies during a Redis outage (see the pending-file test in policy-stores.test.ts): it
// admits while Redis is up, settles once the test has stopped Redis, reports, and waits to be killed.
// Plain JavaScript over the built package, like ledger-child.mjs.
import { parseConfig } from '../../../packages/middleware/dist/config/index.js';
import { KeyRing } from '../../../packages/middleware/dist/auth/index.js';
import { createPolicy } from '../../../packages/middleware/dist/store/index.js';
import { systemClock } from '../../../packages/middleware/dist/runtime-clock.js';

const [dir, url, prefix] = process.argv.slice(2);
const { config } = parseConfig({ organizations: { acme: { wallet: 1 } }, store: { kind: 'redis', url, prefix, pendingFile: 'pending.jsonl' }, policyTimeoutMs: 500 }, {});
const { policy } = await createPolicy({ config, keys: new KeyRing(), clock: systemClock, baseDir: dir, logger: { error: () => {} } });
const admission = await policy.admit({ principal: { keyId: 'k1', org: 'acme', scopes: ['models'] }, alias: 'gpt', billing: 'wallet', price: { input: 2.5, output: 10 }, estimatedInputTokens: 10, maxOutputTokens: 64 });
process.send('admitted');
await new Promise((resolve) => process.once('message', resolve));
await admission.settle({ inputTokens: 10, outputTokens: 20 });
process.send('settled');
setInterval(() => {}, 60_000);
