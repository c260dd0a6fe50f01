import { crc32 } from 'node:zlib';
import { isTruncate, type PageOp } from './page-op.js';
import type { PageSet } from './page-set.js';

/**
 * One journal record per group commit, appended to a segment and fdatasync'ed before its requests are
 * acknowledged:
 *
 *      0 u32  magic 'TGJ1'
 *      4 u32  payload length
 *      8 u64  lsn (one per record, +1 each, across segments)
 *     16 u64  file size after the record
 *     24 u32  number of operations
 *     28 u32  CRC-32 of bytes 8..28 and the payload
 *     32 payload, per op: u8 kind (1 write, 2 truncate), u64 offset or size, then for writes u32 length + bytes
 *
 * A record that is cut short, fails its checksum or does not carry the next lsn ends the segment: it was
 * never acknowledged (a crash during its write).
 */
const MAGIC = 0x54474a31;
const HEADER_BYTES = 32;
const WRITE = 1;
const TRUNCATE = 2;

export interface JournalRecord {
  lsn: number;
  sizeAfter: number;
  ops: PageOp[];
}

/** One record as the buffers to write (header first) and their total length. */
export function encodeRecord(lsn: number, pages: PageSet): Buffer {
  const parts: Uint8Array[] = [];
  let payload = 0;
  let count = 0;
  for (const op of pages.ops()) {
    count++;
    if (isTruncate(op)) {
      const head = Buffer.allocUnsafe(9);
      head.writeUInt8(TRUNCATE, 0);
      head.writeBigUInt64LE(BigInt(op.truncate), 1);
      parts.push(head);
      payload += 9;
    } else {
      const head = Buffer.allocUnsafe(13);
      head.writeUInt8(WRITE, 0);
      head.writeBigUInt64LE(BigInt(op.offset), 1);
      head.writeUInt32LE(op.data.byteLength, 9);
      parts.push(head, op.data);
      payload += 13 + op.data.byteLength;
    }
  }
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(payload, 4);
  header.writeBigUInt64LE(BigInt(lsn), 8);
  header.writeBigUInt64LE(BigInt(Math.max(0, pages.sizeAfter)), 16);
  header.writeUInt32LE(count, 24);
  let crc = crc32(header.subarray(8, 28));
  for (const part of parts) crc = crc32(part, crc);
  header.writeUInt32LE(crc, 28);
  return Buffer.concat([header, ...parts], HEADER_BYTES + payload);
}

/** The valid records of one segment, in order, up to the first torn one; and the lsn that would follow. */
export function decodeSegment(buffer: Buffer, firstLsn: number): { records: JournalRecord[]; nextLsn: number } {
  const records: JournalRecord[] = [];
  let at = 0;
  let expected = firstLsn;
  while (at + HEADER_BYTES <= buffer.length) {
    if (buffer.readUInt32LE(at) !== MAGIC) break;
    const payload = buffer.readUInt32LE(at + 4);
    const end = at + HEADER_BYTES + payload;
    if (end > buffer.length) break;
    if (Number(buffer.readBigUInt64LE(at + 8)) !== expected) break;
    if (crc32(buffer.subarray(at + HEADER_BYTES, end), crc32(buffer.subarray(at + 8, at + 28))) !== buffer.readUInt32LE(at + 28)) break;
    const ops: PageOp[] = [];
    let p = at + HEADER_BYTES;
    for (let count = buffer.readUInt32LE(at + 24); count > 0; count--) {
      const kind = buffer.readUInt8(p);
      const value = Number(buffer.readBigUInt64LE(p + 1));
      if (kind === TRUNCATE) {
        ops.push({ truncate: value });
        p += 9;
      } else {
        const length = buffer.readUInt32LE(p + 9);
        ops.push({ offset: value, data: buffer.subarray(p + 13, p + 13 + length) });
        p += 13 + length;
      }
    }
    records.push({ lsn: expected, sizeAfter: Number(buffer.readBigUInt64LE(at + 16)), ops });
    at = end;
    expected++;
  }
  return { records, nextLsn: expected };
}
