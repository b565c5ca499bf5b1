-- Takes a lease of KEYS[1], a sorted set of leases scored by the instant
-- (µs) each ends, if fewer than ARGV[1] leases are live, unless KEYS[2],
-- the lease's tombstone, says its caller gave up before (see cancel.lua).
-- ARGV: limit, lease µs, member, [now µs: the caller's clock], then the
-- leases of KEYS[1] whose release did not reach Redis, removed first;
-- KEYS[3] on are the tombstones of those that were abandoned Acquires'
-- (their cancellations not sent), left for a lease as cancel.lua does.
-- Returns {1, live leases} when taken, or {0, live leases, µs until the
-- first lease ends} when every slot is held ({0, 0} when cancelled).
if #ARGV > 4 then
  redis.call('ZREM', KEYS[1], unpack(ARGV, 5))
end
for i = 3, #KEYS do
  redis.call('SET', KEYS[i], '1', 'PX', math.floor(tonumber(ARGV[2]) / 1000))
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  return {0, 0}
end
local now
if ARGV[4] and ARGV[4] ~= '' then
  now = tonumber(ARGV[4])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  -- On Redis TIME no lease ends later than now + its own Lease (the
  -- member's name ends with it: see newMember) unless the clock went back
  -- (a failover to a server whose clock lags, a clock stepped back): such
  -- an end is brought back to now + its Lease, so that a slot whose holder
  -- died is held a Lease at most, not as long as the clock went back. An
  -- end beyond now + this caller's Lease but within its own (a limiter of
  -- the set with a longer Lease: a reload, ManualRenew) is a live lease,
  -- kept; one of a name without its Lease is kept too. Only the ends
  -- beyond now + this Lease are read: one within it is held no longer
  -- than this Lease anyway. (A caller's clock may lag another caller's:
  -- not then.)
  local far = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. (now + tonumber(ARGV[2])), '+inf', 'WITHSCORES')
  local moved = false
  for i = 1, #far, 2 do
    local own = tonumber(string.match(far[i], '%.(%d+)$') or '')
    if own and tonumber(far[i + 1]) > now + own then
      redis.call('ZADD', KEYS[1], now + own, far[i])
      moved = true
    end
  end
  if moved then
    local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
    redis.call('PEXPIRE', KEYS[1], math.floor((tonumber(last[2]) - now) / 1000) + 1)
  end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local n = redis.call('ZCARD', KEYS[1])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) then
  return {1, n} -- this very acquire, sent again: already taken
end
if n >= tonumber(ARGV[1]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, n, tonumber(first[2]) - now}
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], math.floor((tonumber(last[2]) - now) / 1000) + 1)
return {1, n + 1}
