// Draws the extension's 128×128 marketplace icon (media/icon.png): the activity-bar gate of media/tollgate.svg,
// white on a rounded blue square. There is no image tool on the build machines and no network, so this writes
// the PNG bytes itself (RGBA, deflated with node:zlib); run it after changing the drawing and commit the PNG.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const SIZE = 128;
const SAMPLES = 4; // 4×4 samples a pixel: smooth edges
const background = [0x1f, 0x5f, 0xa8];
// The gate in the 24-unit grid of tollgate.svg: posts, arch, barrier bar, booth, ground line.
const segments = [
  [4, 21, 4, 9], [20, 21, 20, 9], [2, 21, 22, 21], [4, 14, 20, 14], [8, 21, 8, 17], [8, 17, 16, 17], [16, 17, 16, 21],
];
const arch = { x: 12, y: 9, r: 8 };
const toGrid = (pixel) => (pixel - 16) / 4; // 24 units → 96 px, centred
const HALF_STROKE = 0.9;

function distanceToSegment(px, py, [x1, y1, x2, y2]) {
  const dx = x2 - x1, dy = y2 - y1;
  const t = Math.max(0, Math.min(1, ((px - x1) * dx + (py - y1) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - x1 - t * dx, py - y1 - t * dy);
}

function onGate(px, py) {
  const toArch = py <= arch.y ? Math.abs(Math.hypot(px - arch.x, py - arch.y) - arch.r) : Infinity;
  return Math.min(toArch, ...segments.map((segment) => distanceToSegment(px, py, segment))) <= HALF_STROKE;
}

function inRoundedSquare(x, y) {
  const radius = 24;
  const cx = Math.min(Math.max(x, radius), SIZE - radius);
  const cy = Math.min(Math.max(y, radius), SIZE - radius);
  return Math.hypot(x - cx, y - cy) <= radius;
}

const raw = Buffer.alloc(SIZE * (SIZE * 4 + 1));
for (let y = 0; y < SIZE; y++) {
  raw[y * (SIZE * 4 + 1)] = 0; // filter: none
  for (let x = 0; x < SIZE; x++) {
    let square = 0, gate = 0;
    for (let sy = 0; sy < SAMPLES; sy++) {
      for (let sx = 0; sx < SAMPLES; sx++) {
        const fx = x + (sx + 0.5) / SAMPLES, fy = y + (sy + 0.5) / SAMPLES;
        if (!inRoundedSquare(fx, fy)) continue;
        square++;
        if (onGate(toGrid(fx), toGrid(fy))) gate++;
      }
    }
    const share = gate / Math.max(1, square);
    const at = y * (SIZE * 4 + 1) + 1 + x * 4;
    for (let channel = 0; channel < 3; channel++) raw[at + channel] = Math.round(background[channel] * (1 - share) + 255 * share);
    raw[at + 3] = Math.round((255 * square) / (SAMPLES * SAMPLES));
  }
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([head, body, crc]);
}
const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
writeFileSync(new URL('../media/icon.png', import.meta.url), png);
console.log(`media/icon.png: ${png.length} bytes`);
