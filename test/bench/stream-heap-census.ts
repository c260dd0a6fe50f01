// Issue 19: what one open stream keeps on the gateway's heap, by constructor. Takes a heap snapshot of the
// gateway with no stream and one with BENCH_OPEN_STREAMS (default 1,000) open, both after a full GC, and
// prints the difference of self sizes per (node type, name) divided by the stream count: each row is what
// a stream holds of that kind. Run:
//   node --conditions=tollgate-source --import tsx test/bench/stream-heap-census.ts
// CENSUS_FRONT=bare-proxy takes the bare undici proxy's census instead (the floor); CENSUS_METHOD=pooled gives the
// front 256 upstream connections instead of one per stream (gateway-bench.ts's StreamMethod).
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchProcess } from './bench-process.js';
import { bareProxyFront, memoryWithOpenStreams, tollgateFront, type StreamMethod } from './gateway-bench.js';

const OPEN_STREAMS = Number(process.env.BENCH_OPEN_STREAMS ?? 1000);
const ROWS = Number(process.env.CENSUS_ROWS ?? 40);

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]]; location_fields: string[] } };
  nodes: number[];
  edges: number[];
  strings: string[];
  locations: number[];
}

/**
 * Self bytes and node counts per `type name` (strings grouped as one row: their text is not a kind);
 * closures also by where their function is written (`closure @ file:line`), found through the closure's
 * `shared` function info and its script.
 */
function census(path: string): Map<string, { bytes: number; count: number }> {
  const heap = JSON.parse(readFileSync(path, 'utf8')) as HeapSnapshot;
  const fields = heap.snapshot.meta.node_fields;
  const types = heap.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt, edgeCountAt] = [fields.indexOf('type'), fields.indexOf('name'), fields.indexOf('self_size'), fields.indexOf('edge_count')];
  const edgeFields = heap.snapshot.meta.edge_fields.length;
  const edgeNameAt = heap.snapshot.meta.edge_fields.indexOf('name_or_index');
  const edgeToAt = heap.snapshot.meta.edge_fields.indexOf('to_node');
  const firstEdge = new Uint32Array(heap.nodes.length / fields.length + 1);
  for (let n = 0, e = 0; n < heap.nodes.length / fields.length; n++) {
    firstEdge[n] = e;
    e += heap.nodes[n * fields.length + edgeCountAt]! * edgeFields;
    firstEdge[n + 1] = e;
  }
  // Named edges only (property / internal); element edges' name_or_index is an index, never matched by name.
  const edgeTo = (node: number, name: string): number | undefined => {
    for (let e = firstEdge[node]!; e < firstEdge[node + 1]!; e += edgeFields) {
      const nameIndex = heap.edges[e + edgeNameAt]!;
      if (heap.strings[nameIndex] === name) return heap.edges[e + edgeToAt]! / fields.length;
    }
    return undefined;
  };
  const lineOf = new Map<number, number>();
  const locationFields = heap.snapshot.meta.location_fields.length;
  for (let i = 0; i < heap.locations.length; i += locationFields) lineOf.set(heap.locations[i]! / fields.length, heap.locations[i + 2]! + 1);
  const whereWritten = (closure: number): string => {
    const shared = edgeTo(closure, 'shared');
    // V8 names the script node after its file.
    const script = shared === undefined ? undefined : edgeTo(shared, 'script_or_debug_info');
    const file = script === undefined ? '?' : heap.strings[heap.nodes[script * fields.length + nameAt]!]!.replace(/^.*\/(node_modules|src|lib)\//, '$1/');
    return `${file}:${lineOf.get(closure) ?? '?'}`;
  };
  // A suspended async function or generator, by its function: which frames of a request stay alive.
  const suspended = (generator: number): string => {
    const fn = edgeTo(generator, 'function');
    return fn === undefined ? '?' : `${heap.strings[heap.nodes[fn * fields.length + nameAt]!]} @ ${whereWritten(fn)}`;
  };
  const rows = new Map<string, { bytes: number; count: number }>();
  for (let i = 0; i < heap.nodes.length; i += fields.length) {
    const type = types[heap.nodes[i + typeAt]!]!;
    const name = type === 'string' || type === 'concatenated string' || type === 'sliced string' || type === 'number' ? '' : heap.strings[heap.nodes[i + nameAt]!]!;
    const key = type === 'closure' ? `closure ${name.slice(0, 30)} @ ${whereWritten(i / fields.length)}` : name === 'Generator' ? `Generator of ${suspended(i / fields.length)}` : `${type} ${name.slice(0, 60)}`;
    const row = rows.get(key) ?? { bytes: 0, count: 0 };
    row.bytes += heap.nodes[i + sizeAt]!;
    row.count++;
    rows.set(key, row);
  }
  return rows;
}

function snapshot(gateway: BenchProcess, path: string): Promise<string> {
  return new Promise((resolve) => {
    const onMessage = (message: unknown) => {
      const written = (message as { heapSnapshot?: string }).heapSnapshot;
      if (written === undefined) return;
      gateway.child.off('message', onMessage);
      resolve(written);
    };
    gateway.child.on('message', onMessage);
    gateway.child.send({ heapSnapshot: path });
  });
}

const dir = tmpdir();
const paths = { before: join(dir, `census-before-${process.pid}.heapsnapshot`), during: join(dir, `census-during-${process.pid}.heapsnapshot`) };
const memory = await memoryWithOpenStreams(OPEN_STREAMS, {
  before: async (gateway) => void (await snapshot(gateway, paths.before)),
  during: async (gateway) => void (await snapshot(gateway, paths.during)),
}, process.env.CENSUS_FRONT === 'bare-proxy' ? bareProxyFront : tollgateFront, (process.env.CENSUS_METHOD ?? 'relayed') as StreamMethod);
const before = census(paths.before);
const during = census(paths.during);
rmSync(paths.before);
rmSync(paths.during);
const diff = [...during].map(([key, row]) => {
  const base = before.get(key) ?? { bytes: 0, count: 0 };
  return { key, bytes: (row.bytes - base.bytes) / OPEN_STREAMS, count: (row.count - base.count) / OPEN_STREAMS };
});
diff.sort((a, b) => b.bytes - a.bytes);
const total = diff.reduce((sum, row) => sum + row.bytes, 0);
console.log(`${OPEN_STREAMS} open streams: heapUsed ${((memory.during.heapUsed - memory.before.heapUsed) / OPEN_STREAMS / 1024).toFixed(2)} KiB per stream; snapshot self sizes ${(total / 1024).toFixed(2)} KiB per stream`);
console.log('bytes/stream  objects/stream  type name');
for (const row of diff.slice(0, ROWS)) console.log(`${row.bytes.toFixed(0).padStart(12)}  ${row.count.toFixed(2).padStart(14)}  ${row.key}`);
process.exit(0);
