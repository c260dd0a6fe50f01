/**
 * The Redis store's admin changes as Lua, so each is all-or-nothing (issue 15 item 9): the balance and
 * its ledger entry change together or not at all. A MULTI would not do: Redis runs the rest of a
 * transaction when one command fails, which once left a top-up's ledger entry without its balance.
 * Both keys are the organization's (one hash-tagged slot): its balance hash and its stream of changes,
 * capped like every per-request structure (issue 14).
 */

/**
 * KEYS: bal changes. ARGV: micros maxMicros org at.
 * Returns {'ok', wallet} with the new wallet in micro-dollars, or {'too_large', wallet} and changes nothing.
 */
export const topUpScript = `
local micros = tonumber(ARGV[1])
local wallet = tonumber(redis.call('HGET', KEYS[1], 'wallet') or '0')
if wallet + micros > tonumber(ARGV[2]) then return {'too_large', tostring(wallet)} end
local after = redis.call('HINCRBY', KEYS[1], 'wallet', micros)
redis.call('XADD', KEYS[2], 'MAXLEN', '~', 10000, '*', 't', 'topup', 'org', ARGV[3], 'micros', micros, 'at', ARGV[4])
return {'ok', tostring(after)}
`;

/** KEYS: bal changes. ARGV: value ('1' | '0') org at. */
export const paymentMethodScript = `
redis.call('HSET', KEYS[1], 'payment', ARGV[1])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', 10000, '*', 't', 'payment', 'org', ARGV[2], 'value', ARGV[1], 'at', ARGV[3])
return 1
`;
