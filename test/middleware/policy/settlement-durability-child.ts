// A Tollgate with a durable memory store, run as a child process so the test can SIGKILL it.
import { createServer } from 'node:http';
import { tollgate } from '@tollgate/middleware';

const [dir, upstream] = process.argv.slice(2) as [string, string];
const gate = tollgate(
  {
    defaultCatalog: false,
    keys: [{ key: 'tg-settle-key-0001-0123456789abcdef', org: 'acme' }],
    organizations: { acme: { wallet: 100 } },
    providers: { openai: { kind: 'openai', baseUrl: upstream, apiKey: 'sk-fake-openai' } },
    models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 } } },
    store: { kind: 'memory', file: 'state.json' },
  },
  { baseDir: dir, logger: { info() {}, error() {} } },
);
await gate.ready();
const server = createServer(gate).listen(0, '127.0.0.1', () => {
  process.send?.({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
});
