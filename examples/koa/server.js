// A Koa app that adopts Tollgate: @koa/bodyparser in front, its own routes, Tollgate under /ai via koa-mount-style prefixing.
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { readConfigFile, tollgate } from '@tollgate/middleware';
import { koa } from '@tollgate/middleware/koa';

/**
 * Builds the app. `config` is a Tollgate config object; by default it is read from tollgate.config.json.
 * @param {{ config?: object, baseDir?: string }} [options]
 */
export function createApp({ config, baseDir = import.meta.dirname } = {}) {
  const gate = tollgate(config ?? fileConfig(baseDir), { baseDir });
  const tollgateKoa = koa(gate);
  const app = new Koa();
  app.use(bodyParser({ jsonLimit: '20mb' }));
  app.use(async (ctx, next) => {
    if (ctx.path === '/health') ctx.body = { status: 'ok' };
    else await next();
  });
  // Mount under /ai: strip the prefix for Tollgate, as koa-mount would, and restore it afterwards.
  app.use(async (ctx, next) => {
    if (!ctx.path.startsWith('/ai/')) return next();
    const original = ctx.url;
    ctx.url = ctx.url.slice('/ai'.length);
    try {
      await tollgateKoa(ctx, next);
    } finally {
      ctx.url = original;
    }
  });
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = { error: 'not found in the example app' };
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
  console.log(`Koa example on ${running.url} — Tollgate under ${running.url}/ai`);
  for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => running.close().then(() => process.exit(0)));
}
