import type { ConfigInput } from '@tollgate/middleware';
import { startGateway } from '../support/gateway.js';

/**
 * Tollgate in a process of its own, so a test can sample the gateway's RSS alone: started with the config
 * in argv[2], it sends `{url}` to its parent, answers every 'rss' message with `{rss}` (bytes, after a
 * full GC) and exits on 'close' or when its parent goes.
 */
const gateway = await startGateway(JSON.parse(process.argv[2]!) as ConfigInput);
process.on('message', async (message) => {
  if (message === 'rss') {
    (globalThis as { gc?: () => void }).gc?.();
    process.send!({ rss: process.memoryUsage().rss });
  } else if (message === 'close') {
    await gateway.close();
    process.exit(0);
  }
});
// A parent that died (or a test that timed out and left) takes its gateway with it.
process.on('disconnect', () => process.exit(0));
process.send!({ url: gateway.url });
