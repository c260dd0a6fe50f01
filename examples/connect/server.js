// A connect app (plain node:http underneath) that mounts Tollgate under /ai beside its own handlers.
import { createServer } from 'node:http';
import connect from 'connect';
import { readConfigFile, tollgate } from '@tollgate/middleware';

/**
 * Builds the app. `config` is a Tollgate config object; by default it is read from tollgate.config.json.
 * @param {{ config?: object, baseDir?: string }} [options]
 */
export function createApp({ config, baseDir = import.meta.dirname } = {}) {
  const gate = tollgate(config ?? fileConfig(baseDir), { baseDir });
  const app = connect();
  app.use('/health', (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: 'ok' }));
  });
  app.use('/ai', gate);
  app.use((_req, res) => {
    res.statusCode = 404;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ error: 'not found in the example app' }));
  });
  return { app, gate };
}

/**
 * tollgate.config.json as written. OPENAI_BASE_URL / ANTHROPIC_BASE_URL, when set, point a provider elsewhere (an
 * Ollama); unset, the vendor's own API: a `${NAME}` in the file that is unset would disable the provider instead.
 */
function fileConfig(baseDir) {
  const config = readConfigFile(`${baseDir}/tollgate.config.json`);
  if (process.env.OPENAI_BASE_URL) config.providers.openai.baseUrl = '${OPENAI_BASE_URL}';
  if (process.env.ANTHROPIC_BASE_URL) config.providers.anthropic.baseUrl = '${ANTHROPIC_BASE_URL}';
  return config;
}

/** Starts the app and stops it gracefully on SIGTERM/SIGINT. */
export async function start({ port = Number(process.env.PORT ?? 3000), host = '127.0.0.1', ...options } = {}) {
  const { app, gate } = createApp(options);
  await gate.ready();
  const server = createServer(app);
  await new Promise((resolve) => server.listen(port, host, resolve));
  const close = async () => {
    await new Promise((resolve) => server.close(resolve));
    await gate.close();
  };
  return { server, gate, close, url: `http://${host}:${server.address().port}` };
}

if (import.meta.filename === process.argv[1]) {
  const running = await start();
  console.log(`connect example on ${running.url} — Tollgate under ${running.url}/ai`);
  for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => running.close().then(() => process.exit(0)));
}
