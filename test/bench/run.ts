// `npm run bench`: every benchmark in one run on this machine, printed as one Markdown report.
import { beyondBench } from './beyond-bench.js';
import { gatewayBench } from './gateway-bench.js';
import { observeBench } from './observe-bench.js';
import { policyBench } from './policy-bench.js';
import { sqlBench } from './sql-bench.js';
import { sqlDurableBench } from './sql-durable-bench.js';
import { sqlPostgresBench } from './sql-postgres-bench.js';
import { sqlPostgresGcBench } from './sql-postgres-gc.js';

const sections = [];
for (const [name, bench] of [['sql', sqlBench], ['sql durable writes by size', sqlDurableBench], ['sql on postgres', sqlPostgresBench], ['scavenges on postgres', sqlPostgresGcBench], ['gateway', gatewayBench], ['policy', policyBench], ['metrics overhead', observeBench], ['reservations and idempotency', beyondBench]] as const) {
  process.stderr.write(`running the ${name} benchmark…\n`);
  sections.push(await bench());
}
console.log(`## Benchmarks (${new Date().toISOString().slice(0, 10)}, ${process.version})\n\n${sections.join('\n\n')}`);
process.exit(0);
