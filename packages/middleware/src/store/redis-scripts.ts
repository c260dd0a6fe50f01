/**
 * The Redis policy's two atomic steps as Lua, so limits and money hold across instances with one round
 * trip to admit and one to settle. They implement the same rules as policy/admission-rules.ts, and the
 * same windows as policy/second-ring.ts (README "Rate limits: the promise").
 *
 * Every key a script touches belongs to one organization and carries its `{org}` hash tag, so a script
 * touches one slot and runs on Redis Cluster: bal (hash: wallet micros, payment, incUsed, incClaimed,
 * resetAt, totals), win (hash, at most 125 fields however busy: head = the newest second counted, rt/tt =
 * what the request and token rings count, r<i>/t<i> = second i mod 61 of each ring), slots (zset of concurrency
 * leases of requests in flight, each expiring so a dead instance's slots come back), lapsed (zset of
 * leases that expired unsettled, kept 7 days), revoked (set of the organization's revoked key ids),
 * ledger (stream of settlements, trimmed once exported: redis-ledger-export.ts), changes (stream of
 * top-ups and payment-method changes, capped at about 10,000), reservations (hash: lease id → the
 * worst-case micro-dollars its admission reserved, bal's `reserved` their sum; `<lease id>:inc` → the
 * allowance tokens an included admission claimed, bal's `incClaimed` their sum).
 *
 * A settlement charges only if it removes its admission's lease, from slots or lapsed: that makes a
 * settlement sent again (after a lost reply, from the pending file) a no-op with no per-settlement
 * marker, so what Redis keeps is bounded by the requests in flight, not by the traffic.
 */

/**
 * The ring's arithmetic in Lua: advance to the current second (emptying seconds that left the window)
 * and the real wait until `excess` has left a ring.
 */
const ringFunctions = `
local RING = 61
local function advance(win, second)
  local head = tonumber(redis.call('HGET', win, 'head') or '')
  if head == nil or second - head >= RING then
    redis.call('DEL', win)
    redis.call('HSET', win, 'head', second, 'rt', 0, 'tt', 0)
    return second
  end
  if second <= head then return head end
  local fields = {}
  for s = head + 1, second do
    fields[#fields + 1] = 'r' .. (s % RING)
    fields[#fields + 1] = 't' .. (s % RING)
  end
  local values = redis.call('HMGET', win, unpack(fields))
  local r, t = 0, 0
  for i = 1, #values, 2 do
    r = r + (tonumber(values[i]) or 0)
    t = t + (tonumber(values[i + 1]) or 0)
  end
  redis.call('HDEL', win, unpack(fields))
  -- (0 - x, not -x: Lua renders -0 as "-0", which HINCRBY refuses)
  if r ~= 0 then redis.call('HINCRBY', win, 'rt', 0 - r) end
  if t ~= 0 then redis.call('HINCRBY', win, 'tt', 0 - t) end
  redis.call('HSET', win, 'head', second)
  return second
end
local function waitUntilFreed(win, ring, head, excess, now)
  local fields = {}
  for s = head - RING + 1, head do fields[#fields + 1] = ring .. (s % RING) end
  local values = redis.call('HMGET', win, unpack(fields))
  local freed = 0
  local newest = head
  for i = 1, #values do
    local count = tonumber(values[i]) or 0
    if count ~= 0 then
      local s = head - RING + i
      freed = freed + count
      newest = s
      if freed >= excess then return (s + RING) * 1000 - now end
    end
  end
  return (newest + RING) * 1000 - now
end
-- Requests and tokens per minute over one window (an organization's or a key's): a refusal, or nil and
-- the window's head second (nil when neither limit is set), as policy/admission-rules.ts limitRefusal.
local function limitRefusal(win, rpm, tpm, est, now)
  if rpm <= 0 and tpm <= 0 then return nil, nil end
  local head = advance(win, math.floor(now / 1000))
  -- Every full window is checked and the longest wait answered: a retry after a shorter one would be refused again.
  local wait = -1
  if rpm > 0 then
    local admitted = tonumber(redis.call('HGET', win, 'rt') or '0')
    if admitted >= rpm then wait = math.max(wait, waitUntilFreed(win, 'r', head, admitted - rpm + 1, now)) end
  end
  if tpm > 0 then
    local used = tonumber(redis.call('HGET', win, 'tt') or '0')
    -- An empty window admits any prompt, even one larger than the whole limit (alone).
    if used > 0 and used + est > tpm then wait = math.max(wait, waitUntilFreed(win, 't', head, used + est - tpm, now)) end
  end
  if wait >= 0 then return {'rate', tostring(wait)}, head end
  return nil, head
end
-- Counts an admission in its window's head second; answers the totals counted and the tokens' second ('' each when not limited).
local function countAdmission(win, head, rpm, tpm, est)
  local requestsCounted, tokensCounted, tokenSecond = '', '', ''
  if rpm > 0 then
    redis.call('HINCRBY', win, 'r' .. (head % RING), 1)
    requestsCounted = tostring(redis.call('HINCRBY', win, 'rt', 1))
  end
  if tpm > 0 then
    redis.call('HINCRBY', win, 't' .. (head % RING), est)
    tokensCounted = tostring(redis.call('HINCRBY', win, 'tt', est))
    tokenSecond = tostring(head)
  end
  return requestsCounted, tokensCounted, tokenSecond
end
`;

/**
 * Reservations (README "Reservations"), kept apart from the limits and the charge: the same rule as
 * policy/admission-rules.ts `canReserve`, and the release that both a settlement and a lease that
 * lapsed unsettled perform — once, since whichever comes first deletes the lease's entry. An included
 * admission's claim on the allowance (admission-rules.ts `includedClaim`) is held and released the same
 * way, in the same hash under `<id>:inc` and summed in bal's `incClaimed`.
 */
const reservationFunctions = `
local function canReserve(bal, overdraft, reservation)
  local headroom = tonumber(redis.call('HGET', bal, 'wallet') or '0') - tonumber(redis.call('HGET', bal, 'reserved') or '0') + overdraft
  return headroom > 0 and headroom >= reservation
end
local function reserve(bal, reservations, id, reservation)
  if reservation <= 0 then return end
  redis.call('HSET', reservations, id, string.format('%d', reservation))
  redis.call('HINCRBY', bal, 'reserved', string.format('%d', reservation))
end
local function releaseReservation(bal, reservations, id)
  local held = tonumber(redis.call('HGET', reservations, id) or '')
  if held == nil then return end
  redis.call('HDEL', reservations, id)
  redis.call('HINCRBY', bal, 'reserved', string.format('%d', 0 - held))
end
local function claim(bal, reservations, id, tokens)
  if tokens <= 0 then return end
  redis.call('HSET', reservations, id .. ':inc', string.format('%d', tokens))
  redis.call('HINCRBY', bal, 'incClaimed', string.format('%d', tokens))
end
local function releaseClaim(bal, reservations, id)
  local held = tonumber(redis.call('HGET', reservations, id .. ':inc') or '')
  if held == nil then return end
  redis.call('HDEL', reservations, id .. ':inc')
  redis.call('HINCRBY', bal, 'incClaimed', string.format('%d', 0 - held))
end
`;

/**
 * The API key's own limits and budget (README "Per-key limits and budgets"), checked after the
 * organization's with the same window arithmetic. KEYS[7..10]: the key's state, win, slots, reservations.
 * ARGV[14..18]: its rpm tpm conc (0: none), budget micro-dollars (-1: none), and when a new period would end.
 * Returns a refusal, or nil and the key's window head (policy/key-rules.ts keyRefusal).
 */
const keyCheckFunction = `
local function keyDenial(now, est, reservation)
  local limited, khead = limitRefusal(KEYS[8], tonumber(ARGV[14]), tonumber(ARGV[15]), est, now)
  if limited then return limited end
  local lapsed = redis.call('ZRANGEBYSCORE', KEYS[9], '-inf', now, 'LIMIT', 0, 100)
  if #lapsed > 0 then
    for _, id in ipairs(lapsed) do releaseReservation(KEYS[7], KEYS[10], id) end
    redis.call('ZREM', KEYS[9], unpack(lapsed))
  end
  local kconc = tonumber(ARGV[16])
  if kconc > 0 and redis.call('ZCOUNT', KEYS[9], '(' .. now, '+inf') >= kconc then return {'rate', '1000'} end
  local budget = tonumber(ARGV[17])
  if budget >= 0 then
    local resetAt = tonumber(redis.call('HGET', KEYS[7], 'resetAt') or '')
    if resetAt == nil or now >= resetAt then
      redis.call('HSET', KEYS[7], 'spent', 0, 'resetAt', ARGV[18])
      resetAt = tonumber(ARGV[18])
    elseif resetAt > tonumber(ARGV[18]) then
      -- Set while a clock ran ahead: the spend stays, renewed at the current period's end (allowance-period.ts keptPeriodEnd).
      redis.call('HSET', KEYS[7], 'resetAt', ARGV[18])
      resetAt = tonumber(ARGV[18])
    end
    local headroom = budget - tonumber(redis.call('HGET', KEYS[7], 'spent') or '0') - tonumber(redis.call('HGET', KEYS[7], 'reserved') or '0')
    if not (headroom > 0 and headroom >= reservation) then return {'budget', tostring(resetAt)} end
  end
  return nil, khead
end
`;

/**
 * KEYS: bal win slots revoked lapsed reservations keyState keyWin keySlots keyReservations.
 * ARGV: now id keyId rpm tpm conc est billing incTokens nextReset leaseMs overdraftMicros worstCaseMicros
 * keyRpm keyTpm keyConc keyBudgetMicros keyNextReset worstCaseTokens.
 * Returns {'ok', second the organization's tokens count in (or ''), requests counted, tokens counted, window
 * head second (these three '' when not limited; for the rate-limit headers), the key's tokens second (or '')}
 * or a refusal.
 */
export const admitScript = `${ringFunctions}${reservationFunctions}${keyCheckFunction}
local now = tonumber(ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 0 then return {'uninitialised'} end
if redis.call('SISMEMBER', KEYS[4], ARGV[3]) == 1 then return {'revoked'} end
local rpm = tonumber(ARGV[4])
local tpm = tonumber(ARGV[5])
local est = tonumber(ARGV[7])
local limited, head = limitRefusal(KEYS[2], rpm, tpm, est, now)
if limited then
  -- The key's own windows too: the refusal names the longer wait, so a retry after it is admitted.
  local keyLimited = limitRefusal(KEYS[8], tonumber(ARGV[14]), tonumber(ARGV[15]), est, now)
  if keyLimited and tonumber(keyLimited[2]) > tonumber(limited[2]) then return keyLimited end
  return limited
end
-- Leases that expired unsettled (a dead instance, a request longer than the lease) free their slot but
-- are kept aside, so their settlement, if it ever comes, still charges once.
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 100)
if #lapsed > 0 then
  for _, id in ipairs(lapsed) do
    redis.call('ZADD', KEYS[5], now + 604800000, id)
    releaseReservation(KEYS[1], KEYS[6], id)
    releaseClaim(KEYS[1], KEYS[6], id)
  end
  redis.call('ZREM', KEYS[3], unpack(lapsed))
  redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now)
end
local conc = tonumber(ARGV[6])
if conc > 0 and redis.call('ZCOUNT', KEYS[3], '(' .. ARGV[1], '+inf') >= conc then return {'rate', '1000'} end
local resetAt = redis.call('HGET', KEYS[1], 'resetAt')
if resetAt and resetAt ~= '' and now >= tonumber(resetAt) then
  redis.call('HSET', KEYS[1], 'incUsed', 0, 'resetAt', ARGV[10])
  resetAt = ARGV[10]
elseif resetAt and resetAt ~= '' and ARGV[10] ~= '' and tonumber(resetAt) > tonumber(ARGV[10]) then
  -- Set while a clock ran ahead: what was used stays, refilled at the current period's end (allowance-period.ts keptPeriodEnd).
  redis.call('HSET', KEYS[1], 'resetAt', ARGV[10])
  resetAt = ARGV[10]
end
local payment = redis.call('HGET', KEYS[1], 'payment') == '1'
local incTokens = tonumber(ARGV[9])
local overdraft = tonumber(ARGV[12])
local reservation = tonumber(ARGV[13])
-- The allowance tokens this admission claims (policy/admission-rules.ts includedClaim): none but for an included model.
local claimed = 0
if ARGV[8] == 'included' and incTokens >= 0 then
  -- What it may still count on (admission-rules.ts allowanceLeft): with a payment method, less what requests in flight claimed.
  local left = incTokens - tonumber(redis.call('HGET', KEYS[1], 'incUsed') or '0')
  if payment then left = left - tonumber(redis.call('HGET', KEYS[1], 'incClaimed') or '0') end
  if left > 0 then
    -- Within the allowance: admitted whatever the wallet holds (contract §7.1), and nothing reserved. With a payment
    -- method the overflow is charged, so it claims its worst case of what is left (the rest, if it crosses the line).
    reservation = 0
    if payment then claimed = math.min(left, tonumber(ARGV[19])) end
  elseif not payment then
    return {'exhausted', resetAt or ''}
  elseif not canReserve(KEYS[1], overdraft, reservation) then
    -- Used up, or what is left is claimed by requests in flight: the wallet pays, as for a wallet model.
    return {'wallet'}
  end
elseif not canReserve(KEYS[1], overdraft, reservation) then
  return {'wallet'}
end
local keyRefusal, khead = keyDenial(now, est, reservation)
if keyRefusal then return keyRefusal end
reserve(KEYS[1], KEYS[6], ARGV[2], reservation)
claim(KEYS[1], KEYS[6], ARGV[2], claimed)
-- The key's reservation is read only against its budget (keyDenial): a key without one reserves nothing,
-- which spares two writes at admission and two at settlement (each one an AOF line under appendfsync always).
if tonumber(ARGV[17]) >= 0 then reserve(KEYS[7], KEYS[10], ARGV[2], reservation) end
redis.call('ZADD', KEYS[9], now + tonumber(ARGV[11]), ARGV[2])
local _, _, keyTokenSecond = countAdmission(KEYS[8], khead, tonumber(ARGV[14]), tonumber(ARGV[15]), est)
local requestsCounted, tokensCounted, tokenSecond = countAdmission(KEYS[2], head, rpm, tpm, est)
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[11]), ARGV[2])
-- The windows' totals after this admission, for the rate-limit headers of its answer (no extra round trip).
return {'ok', tokenSecond, requestsCounted, tokensCounted, tostring(head or ''), keyTokenSecond}
`;

/**
 * KEYS: bal win slots ledger lapsed reservations keyState keyWin keySlots keyReservations.
 * (ARGV[20], the key's window second, and ARGV[21], the route that answered, follow i17's cache ARGVs;
 * either may be absent in a settlement spooled by an older version.)
 * ARGV: id in out billing incTokens pricePicoIn pricePicoOut now nextReset org keyId alias tokenSecond est
 * requestId cached written pricePicoCached pricePicoWrite (the last five may be absent in a settlement
 * spooled by an older version: no id, no cached tokens). `cached`/`written` are parts of `in`, already
 * clamped by policy/money.ts billedTokens; the allowance covers plain input before writes and reads,
 * as policy/admission-rules.ts chargeFor does.
 * tokenSecond is the second the admission's estimate counts in ('' when none, or unknown): the
 * tokens-per-minute correction (actual − estimate) goes there while it is still in the window.
 * Returns the cost in micro-dollars, -1 when this admission was already settled (or never admitted), or
 * an error (nothing changed, the lease kept) when the counts are not non-negative safe integers.
 *
 * The counts are checked and the charge computed before the admission's lease is removed (removing it is
 * what makes a repeat a no-op): a settlement that cannot be applied must not count as done (issue 15).
 * Integers go to Redis through string.format('%d'): Lua hands numbers to redis.call as '%.14g', which
 * turns 15-digit integers into '1.2345678901234e+14' and makes HINCRBY fail half-way through the script.
 */
export const settleScript = `${reservationFunctions}
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
-- Absent in a settlement spooled by an older version: no cached tokens (and the input rate, below).
local cachedT = count(ARGV[16] or '0')
local writtenT = count(ARGV[17] or '0')
if cachedT == nil or writtenT == nil then return redis.error_reply('tollgate: settlement counts must be non-negative safe integers') end
local included = 0
local chargeIn = inT
local chargeOut = outT
local chargeCached = cachedT
local chargeWritten = writtenT
if ARGV[4] == 'included' and incTokens >= 0 then
  local used = 0
  if not refill then used = tonumber(redis.call('HGET', KEYS[1], 'incUsed') or '0') end
  local remaining = math.max(0, incTokens - used)
  local fromIn = math.min(remaining, inT)
  local fromOut = math.min(remaining - fromIn, outT)
  included = fromIn + fromOut
  chargeIn = inT - fromIn
  chargeOut = outT - fromOut
  chargeCached = math.min(cachedT, chargeIn)
  chargeWritten = math.min(writtenT, chargeIn - chargeCached)
  if redis.call('HGET', KEYS[1], 'payment') ~= '1' then chargeIn = 0 chargeOut = 0 chargeCached = 0 chargeWritten = 0 end
end
local picoCached = tonumber(ARGV[18] or '') or tonumber(ARGV[6])
local picoWrite = tonumber(ARGV[19] or '') or tonumber(ARGV[6])
-- Exact ceiling to the micro-dollar: integers below 2^53 are exact in Lua's doubles, and so is % on them.
-- Past that the cost is capped, as in policy/money.ts, so a balance stays an integer Redis can hold.
local pico = (chargeIn - chargeCached - chargeWritten) * tonumber(ARGV[6]) + chargeCached * picoCached + chargeWritten * picoWrite + chargeOut * tonumber(ARGV[7])
local cost = MAX
if pico <= MAX then
  cost = (pico - pico % 1000000) / 1000000
  if pico % 1000000 > 0 then cost = cost + 1 end
elseif pico / 1000000 < MAX then
  cost = math.ceil(pico / 1000000)
end
if redis.call('ZREM', KEYS[3], ARGV[1]) == 0 and redis.call('ZREM', KEYS[5], ARGV[1]) == 0 then return -1 end
releaseReservation(KEYS[1], KEYS[6], ARGV[1])
-- Only an included admission claims allowance tokens: a wallet model's settlement spares the read.
if ARGV[4] == 'included' then releaseClaim(KEYS[1], KEYS[6], ARGV[1]) end
redis.call('ZREM', KEYS[9], ARGV[1])
releaseReservation(KEYS[7], KEYS[10], ARGV[1])
if refill then redis.call('HSET', KEYS[1], 'incUsed', 0, 'resetAt', ARGV[9]) end
-- The tokens-per-minute correction, in the organization's window and the key's.
local function correct(win, second)
  if not second then return end
  local head = tonumber(redis.call('HGET', win, 'head') or '')
  if head and second <= head and head - second < 61 then
    local delta = int(inT + outT - tonumber(ARGV[14]))
    redis.call('HINCRBY', win, 't' .. (second % 61), delta)
    redis.call('HINCRBY', win, 'tt', delta)
  end
end
correct(KEYS[2], tonumber(ARGV[13]))
correct(KEYS[8], tonumber(ARGV[20] or ''))
if inT + outT == 0 then return 0 end
redis.call('HINCRBY', KEYS[7], 'spent', int(cost))
redis.call('HINCRBY', KEYS[7], 'requests', 1)
redis.call('HINCRBY', KEYS[7], 'in', int(inT))
redis.call('HINCRBY', KEYS[7], 'out', int(outT))
redis.call('HINCRBY', KEYS[7], 'cost', int(cost))
if included > 0 then redis.call('HINCRBY', KEYS[1], 'incUsed', int(included)) end
redis.call('HINCRBY', KEYS[1], 'wallet', int(-cost))
redis.call('HINCRBY', KEYS[1], 'requests', 1)
redis.call('HINCRBY', KEYS[1], 'in', int(inT))
redis.call('HINCRBY', KEYS[1], 'out', int(outT))
if cachedT > 0 then redis.call('HINCRBY', KEYS[1], 'cachedIn', int(cachedT)) end
if writtenT > 0 then redis.call('HINCRBY', KEYS[1], 'cacheWrite', int(writtenT)) end
redis.call('HINCRBY', KEYS[1], 'cost', int(cost))
redis.call('XADD', KEYS[4], '*', 't', 'settle', 'id', ARGV[1], 'org', ARGV[10], 'keyId', ARGV[11], 'alias', ARGV[12], 'in', int(inT), 'out', int(outT), 'included', int(included), 'cost', int(cost), 'at', ARGV[8], 'requestId', ARGV[15] or '', 'cached', int(cachedT), 'written', int(writtenT), 'route', ARGV[21] or '')
return cost
`;
