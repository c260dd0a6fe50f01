// The same server as tollgate-server.ts, on another build of the middleware (BASE_DIST, default
// /tmp/s17-cpu-base's): a change's before and after measured in one run, interleaved, so the machine's load
// hits both alike (cpu-per-request.ts with FRONTS=tollgate-base-server,tollgate-server).
process.env.TOLLGATE_BENCH_MIDDLEWARE = process.env.BASE_DIST ?? '/tmp/s17-cpu-base/packages/middleware/dist/index.js';
await import('./tollgate-server.js');
