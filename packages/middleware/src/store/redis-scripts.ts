/**
 * The Redis policy's two atomic steps as Lua, so limits and money hold across instances with one round
 * trip to admit and one to settle. They implement the same rules as policy/admission-rules.ts.
 *
 * Keys per organization: bal (hash: wallet micros, payment, incUsed, resetAt, totals, tpmUsed = the sum of tpmtok), rpm (zset of
 * admission times), tpm (zset of admission times) + tpmtok (hash admission → tokens), slots (zset of lease
 * expiries). Global: revoked (set of key ids), ledger (stream), settled:<id> (idempotency marker).
 */

/** KEYS: bal rpm tpm tpmtok slots revoked. ARGV: now id keyId rpm tpm conc est billing incTokens nextReset leaseMs. */
export const admitScript = `
local now = tonumber(ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 0 then return {'uninitialised'} end
if redis.call('SISMEMBER', KEYS[6], ARGV[3]) == 1 then return {'revoked'} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 60000)
-- tokens per minute as a running sum (bal.tpmUsed), so an admission costs the same however full the window is
-- (in chunks: Lua's unpack takes a few thousand values at most)
while true do
  local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - 60000, 'LIMIT', 0, 1000)
  if #expired == 0 then break end
  local gone = 0
  for _, t in ipairs(redis.call('HMGET', KEYS[4], unpack(expired))) do gone = gone + (tonumber(t) or 0) end
  redis.call('ZREM', KEYS[3], unpack(expired))
  redis.call('HDEL', KEYS[4], unpack(expired))
  redis.call('HINCRBY', KEYS[1], 'tpmUsed', -gone)
end
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now)
local rpm = tonumber(ARGV[4])
if rpm > 0 and redis.call('ZCARD', KEYS[2]) >= rpm then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {'rate', tostring(tonumber(oldest[2]) + 60000 - now)}
end
local tpm = tonumber(ARGV[5])
local est = tonumber(ARGV[7])
if tpm > 0 then
  local used = tonumber(redis.call('HGET', KEYS[1], 'tpmUsed') or '0')
  if used + est > tpm and redis.call('ZCARD', KEYS[3]) > 0 then
    -- Only a refusal walks the window: the wait is until enough of the oldest entries expire.
    local excess = used + est - tpm
    local freed = 0
    local last = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
    local wait = tonumber(last[2]) + 60000 - now
    local offset = 0
    while freed < excess do
      local entries = redis.call('ZRANGE', KEYS[3], offset, offset + 999, 'WITHSCORES')
      if #entries == 0 then break end
      local ids = {}
      for i = 1, #entries, 2 do ids[#ids + 1] = entries[i] end
      local tokens = redis.call('HMGET', KEYS[4], unpack(ids))
      for i = 1, #ids do
        freed = freed + (tonumber(tokens[i]) or 0)
        if freed >= excess then wait = tonumber(entries[2 * i]) + 60000 - now break end
      end
      offset = offset + 1000
    end
    return {'rate', tostring(wait)}
  end
end
local conc = tonumber(ARGV[6])
if conc > 0 and redis.call('ZCARD', KEYS[5]) >= conc then return {'rate', '1000'} end
local resetAt = redis.call('HGET', KEYS[1], 'resetAt')
if resetAt and resetAt ~= '' and now >= tonumber(resetAt) then
  redis.call('HSET', KEYS[1], 'incUsed', 0, 'resetAt', ARGV[10])
  resetAt = ARGV[10]
end
local wallet = tonumber(redis.call('HGET', KEYS[1], 'wallet') or '0')
local payment = redis.call('HGET', KEYS[1], 'payment') == '1'
local incTokens = tonumber(ARGV[9])
if ARGV[8] == 'included' and incTokens >= 0 then
  local incUsed = tonumber(redis.call('HGET', KEYS[1], 'incUsed') or '0')
  if incUsed >= incTokens then
    if not payment then return {'exhausted', resetAt or ''} end
    if wallet <= 0 then return {'wallet'} end
  end
elseif wallet <= 0 then
  return {'wallet'}
end
redis.call('ZADD', KEYS[2], now, ARGV[2])
redis.call('ZADD', KEYS[3], now, ARGV[2])
redis.call('HSET', KEYS[4], ARGV[2], est)
redis.call('HINCRBY', KEYS[1], 'tpmUsed', est)
redis.call('ZADD', KEYS[5], now + tonumber(ARGV[11]), ARGV[2])
return {'ok'}
`;

/**
 * KEYS: bal tpmtok slots ledger settledMarker.
 * ARGV: id in out billing incTokens pricePicoIn pricePicoOut now nextReset org keyId alias.
 * Returns the cost in micro-dollars, -1 when this admission was already settled, or an error (nothing
 * changed, no marker set) when the counts are not non-negative safe integers.
 *
 * The counts are checked and the charge computed before the idempotency marker is set: a settlement that
 * cannot be applied must not be marked done (issue 15). Integers go to Redis through string.format('%d'):
 * Lua hands numbers to redis.call as '%.14g', which turns 15-digit integers into '1.2345678901234e+14'
 * and makes HINCRBY fail half-way through the script.
 */
export const settleScript = `
local MAX = 9007199254740991
local function count(value)
  local n = tonumber(value)
  if n == nil or n ~= n or n < 0 or n > MAX or n ~= math.floor(n) then return nil end
  return n
end
local function int(n) return string.format('%d', n) end
local inT = count(ARGV[2])
local outT = count(ARGV[3])
if inT == nil or outT == nil then return redis.error_reply('tollgate: settlement counts must be non-negative safe integers') end
local now = tonumber(ARGV[8])
local incTokens = tonumber(ARGV[5])
local resetAt = redis.call('HGET', KEYS[1], 'resetAt')
local refill = resetAt and resetAt ~= '' and now >= tonumber(resetAt)
local included = 0
local chargeIn = inT
local chargeOut = outT
if ARGV[4] == 'included' and incTokens >= 0 then
  local used = 0
  if not refill then used = tonumber(redis.call('HGET', KEYS[1], 'incUsed') or '0') end
  local remaining = math.max(0, incTokens - used)
  local fromIn = math.min(remaining, inT)
  local fromOut = math.min(remaining - fromIn, outT)
  included = fromIn + fromOut
  chargeIn = inT - fromIn
  chargeOut = outT - fromOut
  if redis.call('HGET', KEYS[1], 'payment') ~= '1' then chargeIn = 0 chargeOut = 0 end
end
-- Exact ceiling to the micro-dollar: integers below 2^53 are exact in Lua's doubles, and so is % on them.
-- Past that the cost is capped, as in policy/money.ts, so a balance stays an integer Redis can hold.
local pico = chargeIn * tonumber(ARGV[6]) + chargeOut * tonumber(ARGV[7])
local cost = MAX
if pico <= MAX then
  cost = (pico - pico % 1000000) / 1000000
  if pico % 1000000 > 0 then cost = cost + 1 end
elseif pico / 1000000 < MAX then
  cost = math.ceil(pico / 1000000)
end
if not redis.call('SET', KEYS[5], '1', 'NX', 'EX', 86400) then return -1 end
if refill then redis.call('HSET', KEYS[1], 'incUsed', 0, 'resetAt', ARGV[9]) end
redis.call('ZREM', KEYS[3], ARGV[1])
local reserved = redis.call('HGET', KEYS[2], ARGV[1])
if reserved then
  redis.call('HSET', KEYS[2], ARGV[1], int(inT + outT))
  redis.call('HINCRBY', KEYS[1], 'tpmUsed', int(inT + outT - tonumber(reserved)))
end
if inT + outT == 0 then return 0 end
redis.call('HINCRBY', KEYS[1], 'incUsed', int(included))
redis.call('HINCRBY', KEYS[1], 'wallet', int(-cost))
redis.call('HINCRBY', KEYS[1], 'requests', 1)
redis.call('HINCRBY', KEYS[1], 'in', int(inT))
redis.call('HINCRBY', KEYS[1], 'out', int(outT))
redis.call('HINCRBY', KEYS[1], 'cost', int(cost))
redis.call('XADD', KEYS[4], '*', 't', 'settle', 'id', ARGV[1], 'org', ARGV[10], 'keyId', ARGV[11], 'alias', ARGV[12], 'in', int(inT), 'out', int(outT), 'included', int(included), 'cost', int(cost), 'at', ARGV[8])
return cost
`;
