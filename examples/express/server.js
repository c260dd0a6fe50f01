// An Express 5 app that adopts Tollgate: its own routes and body parser stay, Tollgate mounts under /ai.
import express from 'express';
import { readConfigFile, tollgate } from '@tollgate/middleware';

/**
 * Builds the app. `config` is a Tollgate config object; by default it is read from tollgate.config.json.
 * @param {{ config?: object, baseDir?: string }} [options]
 */
export function createApp({ config, baseDir = import.meta.dirname } = {}) {
  const gate = tollgate(config ?? fileConfig(baseDir), { baseDir });
  const app = express();
  app.use(express.json({ limit: '20mb' })); // the parser an Express app already has; Tollgate reuses req.body
  app.get('/health', (_req, res) => res.json({ status: 'ok' }));
  app.use('/ai', gate);
  app.use((_req, res) => res.status(404).json({ error: 'not found in the example app' }));
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

/** Starts the app and stops it gracefully on SIGTERM/SIGINT: in-flight requests finish, state is flushed. */
export async function start({ port = Number(process.env.PORT ?? 3000), host = '127.0.0.1', ...options } = {}) {
  const { app, gate } = createApp(options);
  await gate.ready();
  const server = await new Promise((resolve) => {
    const s = app.listen(port, host, () => resolve(s));
  });
  const close = async () => {
    await new Promise((resolve) => server.close(resolve));
    await gate.close();
  };
  return { server, gate, close, url: `http://${host}:${server.address().port}` };
}

if (import.meta.filename === process.argv[1]) {
  const running = await start();
  console.log(`Express example on ${running.url} — Tollgate under ${running.url}/ai`);
  for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => running.close().then(() => process.exit(0)));
}
