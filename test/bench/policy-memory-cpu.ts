// The memory store's policy CPU per admit + settle, warmed up, over 200,000 requests × 5 rounds (median): policy-bench's
// 20,000-request row is mostly JIT warm-up. Run: node --conditions=tollgate-source --import tsx test/bench/policy-memory-cpu.ts
// Rows (issue 22, what a reservation costs): a priced request (its reservation: prompt estimate + max_tokens at the
// model's price, checked against wallet + overdraft, released at settlement), an unpriced one (reservation 0,
// the same code), and `reservationMicros` + `canReserve` alone (the reservation's own arithmetic).
// BASE=<dir of another checkout> runs that checkout's policy (its TypeScript source, loaded beside this one's) in
// the same interleaved rounds: an A/B of a change.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const N = Number(process.env.N ?? 200_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const priced = { principal: { keyId: 'bench', org: 'bench', scopes: ['models'] }, alias: 'bench-model', billing: 'wallet', price: { input: 2.5, output: 10 }, estimatedInputTokens: 20, maxOutputTokens: 256 };
const unpriced = { ...priced, price: { input: 0, output: 0 } };
const usage = { inputTokens: 20, outputTokens: 40 };
let reserved = 0;
const organization = { wallet: 1_000_000, limits: { rpm: 10_000_000, tpm: 1_000_000_000, concurrency: 1000 } };

interface Checkout {
  label: string;
  policy: { admit(request: unknown): Promise<{ settle(usage: unknown): Promise<unknown> }>; close(): Promise<void> };
  reserve: () => void;
}

/** One checkout's policy over the memory store, and its reservation arithmetic alone, from its own source. */
async function load(root: string, label: string): Promise<Checkout> {
  const src = (path: string) => import(pathToFileURL(join(root, 'packages/middleware/src', path)).href);
  const [{ KeyRing }, { parseConfig }, { createPolicy }, { systemClock }, rules, state] = await Promise.all([src('auth/index.ts'), src('config/index.ts'), src('store/index.ts'), src('runtime-clock.ts'), src('policy/admission-rules.ts'), src('policy/org-state.ts')]);
  const { config } = parseConfig({ organizations: { bench: organization }, store: { kind: 'memory' } }, {});
  const { policy } = await createPolicy({ config, keys: new KeyRing(), clock: systemClock, baseDir: process.cwd() });
  const org = config.organizations.bench;
  const balances = state.openingBalances(org, Date.now());
  const windows = state.emptyWindows();
  const reserve = () => {
    const reservation = rules.reservationMicros(org, balances, priced, windows);
    // Kept where the optimizer cannot drop it.
    if (rules.canReserve(balances.walletMicros, 0, 0, reservation)) reserved += reservation;
  };
  return { label, policy, reserve };
}

async function admitAndSettle(checkout: Checkout, request: unknown, n: number): Promise<void> {
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = 0; i < n / 16; i++) {
        const admission = await checkout.policy.admit(request);
        await admission.settle(usage);
      }
    }),
  );
}

const checkouts = [await load(process.cwd(), '')];
if (process.env.BASE) checkouts.push(await load(process.env.BASE, ' (base)'));
const rows: [string, (checkout: Checkout, n: number) => Promise<void> | void][] = [
  ['admit + settle, priced (reservation of prompt + max_tokens)', (c, n) => admitAndSettle(c, priced, n)],
  ['admit + settle, unpriced (reservation 0)', (c, n) => admitAndSettle(c, unpriced, n)],
  ['reservationMicros + canReserve alone', (c, n) => { for (let i = 0; i < n; i++) c.reserve(); }],
];
for (const checkout of checkouts) for (const [, run] of rows) await run(checkout, 50_000); // warm-up
const samples = new Map<string, number[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const checkout of checkouts) {
    for (const [name, run] of rows) {
      const before = process.cpuUsage();
      await run(checkout, N);
      const cpu = process.cpuUsage(before);
      const key = `${name}${checkout.label}`;
      samples.set(key, [...(samples.get(key) ?? []), (cpu.user + cpu.system) / N]);
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log('| memory store | CPU µs/request (median) | per round |\n|---|---:|---|');
for (const [name, xs] of samples) console.log(`| ${name} | ${median(xs).toFixed(3)} | ${xs.map((x) => x.toFixed(3)).join(' ')} |`);
for (const checkout of checkouts) await checkout.policy.close();
if (reserved <= 0) throw new Error('no reservation was made');
