import type { Redis } from 'ioredis';
import type { KeyRecord } from '../auth/index.js';
import { keyKeys, orgKeys } from './redis-keys.js';
import type { SpooledSettlement } from './settlement-spool.js';

/**
 * Moves what a single Redis server holds in the layout before per-organization slots (`<prefix>org:<org>:bal`
 * and its per-request windows, one `<prefix>revoked` set, one `<prefix>ledger` stream) into the current one
 * (redis-keys.ts), so an upgrade keeps balances, revocations, leases in flight and the ledger. Each step is
 * atomic or idempotent, so instances starting together, or a start that dies midway, leave nothing half
 * moved or moved twice. Only for `store.url`: that layout never ran on a Cluster. Stop every instance of the
 * old version first: an old instance still running would keep writing the old keys.
 *
 * @example
 * await migrateLegacyBalances(redis, 'tollgate:', ['acme'], keyRecords, Date.now());
 * void migrateLegacyLedger(redis, 'tollgate:');
 */
export async function migrateLegacyBalances(redis: Redis, prefix: string, orgs: readonly string[], keys: readonly KeyRecord[], now: number): Promise<void> {
  for (const org of orgs) {
    const old = `${prefix}org:${org}:`;
    const current = orgKeys(prefix, org);
    await redis.eval(MOVE_ORGANIZATION, 7, `${old}bal`, `${old}rpm`, `${old}tpm`, `${old}tpmtok`, `${old}slots`, current.bal, current.lapsed, now);
  }
  const legacyRevoked = `${prefix}revoked`;
  const revoked = await redis.smembers(legacyRevoked);
  if (revoked.length === 0) return;
  const created = Object.values(await redis.hgetall(`${prefix}keys`)).map((json) => JSON.parse(json) as KeyRecord);
  const orgOf = new Map([...created, ...keys].map((record) => [record.keyId, record.org]));
  for (const keyId of revoked) {
    const org = orgOf.get(keyId);
    // A key no configuration or Redis knows any more cannot authenticate: nothing to carry over.
    if (org !== undefined) await redis.sadd(orgKeys(prefix, org).revoked, keyId);
    await redis.srem(legacyRevoked, keyId);
  }
}

/**
 * Moves the old single ledger stream into the organizations' streams (settlements) and change streams
 * (top-ups, payment methods), 500 entries per atomic step; from there the export takes them to the files.
 */
export async function migrateLegacyLedger(redis: Redis, prefix: string): Promise<void> {
  while (((await redis.eval(MOVE_LEDGER_BATCH, 1, `${prefix}ledger`, prefix)) as number) > 0);
}

/**
 * A settlement spooled by an older version (its keys and arguments as then sent), as the current script
 * takes it: 10 keys, then ARGV id … requestId (15), i17's cached written pricePicoCached pricePicoWrite
 * (16–19), i22's key window second and route (20, 21).
 */
export function upgradeSpooledSettlement(prefix: string, settlement: SpooledSettlement): SpooledSettlement {
  const { args } = settlement;
  if (String(args[5]).endsWith(':reservations')) {
    // 10 keys and 17 ARGVs: i22's layout before i17's cache ARGVs were merged in front of its own two.
    if (args.length !== 27) return settlement;
    return { id: settlement.id, args: [...args.slice(0, 25), ...NO_CACHE, args[25]!, args[26]!] };
  }
  // Spooled with five keys (before reservations and per-key state): args[14] is the organization and
  // args[15] the key id in every such layout (17 arguments, 19–20 with the window second and request id,
  // 24 with i17's cache ARGVs).
  const k = orgKeys(prefix, String(args[14]));
  const kk = keyKeys(prefix, String(args[14]), String(args[15]));
  // No window second in the oldest layout: the old windows are gone, so there is nothing to correct.
  const upToRequestId = args.length === 17 ? [...args.slice(5), '', 0, ''] : args.length === 19 ? [...args.slice(5), ''] : args.slice(5, 20);
  const cache = args.length === 24 ? args.slice(20, 24) : NO_CACHE;
  // Nothing was reserved before reservations: the script finds no entry to release, and no key window second.
  return { id: settlement.id, args: [k.bal, k.win, k.slots, k.ledger, k.lapsed, k.reservations, kk.state, kk.win, kk.slots, kk.reservations, ...upToRequestId, ...cache, '', ''] };
}

/** No cached or written tokens; the cache rates then default to the input rate in the script. */
const NO_CACHE: (string | number)[] = [0, 0, '', ''];

/** KEYS: oldBal oldRpm oldTpm oldTpmtok oldSlots bal lapsed. ARGV: now. */
const MOVE_ORGANIZATION = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('EXISTS', KEYS[6]) == 0 then
  local fields = redis.call('HGETALL', KEYS[1])
  for i = 1, #fields, 2 do
    if fields[i] ~= 'tpmUsed' then redis.call('HSET', KEYS[6], fields[i], fields[i + 1]) end
  end
end
-- Leases of requests in flight at the upgrade: their settlements (late, or from a pending file) still charge once.
for _, id in ipairs(redis.call('ZRANGE', KEYS[5], 0, -1)) do redis.call('ZADD', KEYS[7], tonumber(ARGV[1]) + 604800000, id) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return 1
`;

/** KEYS: the old ledger stream. ARGV: prefix. Keys it writes are derived (a single server only). */
const MOVE_LEDGER_BATCH = `
local entries = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 500)
for _, entry in ipairs(entries) do
  local fields = entry[2]
  local org, kind
  for i = 1, #fields, 2 do
    if fields[i] == 'org' then org = fields[i + 1] elseif fields[i] == 't' then kind = fields[i + 1] end
  end
  if org then
    local target = ARGV[1] .. '{' .. org .. '}:' .. (kind == 'settle' and 'ledger' or 'changes')
    redis.call('XADD', target, '*', unpack(fields))
  end
  redis.call('XDEL', KEYS[1], entry[1])
end
if #entries == 0 then redis.call('DEL', KEYS[1]) end
return #entries
`;
