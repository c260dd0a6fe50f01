// A process that dies between writing exported ledger lines and trimming them from Redis (see
// redis-ledger-export.test.ts): its sink is the real LedgerFiles, but once an append is durable it reports
// and never returns, so the trim never runs, and the test SIGKILLs it. Plain JavaScript over the built package.
import { Redis } from 'ioredis';
import { LedgerFiles } from '../../../packages/middleware/dist/store/ledger-files.js';
import { RedisLedgerExport } from '../../../packages/middleware/dist/store/redis-ledger-export.js';
import { orgKeys } from '../../../packages/middleware/dist/store/redis-keys.js';

const [dir, url, prefix] = process.argv.slice(2);
const redis = new Redis(url);
const files = await LedgerFiles.open({ dir });
const exporter = new RedisLedgerExport({
  redis,
  organizations: ['acme'],
  keysOf: (org) => orgKeys(prefix, org),
  dir,
  everyMs: 60_000,
  logger: { error: (message, error) => console.error(message, error) },
  openSink: async () => ({
    append: async (lines) => {
      await files.append(lines);
      process.send(`exported ${lines.length}`);
      await new Promise(() => {});
    },
    close: () => files.close(),
  }),
});
void exporter.exportNow();
