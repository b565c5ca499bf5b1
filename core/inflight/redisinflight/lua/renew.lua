-- Extends the lease ARGV[1] of KEYS[1] to now + ARGV[2] µs, if it is
-- still live, never moving its end back: with the caller's clock, a
-- renewal that read it before another but arrives after it (stalled
-- before sending, or on a slower connection) would cut the lease short,
-- and its slot would go to another while its holder goes on. ARGV:
-- member, lease µs, [now µs]. Returns 1, or 0 when the lease has ended
-- (its slot may be someone else's by now).
local now, timed = nil, false
if ARGV[3] and ARGV[3] ~= '' then
  now = tonumber(ARGV[3])
else
  local t = redis.call('TIME')
  now, timed = tonumber(t[1]) * 1000000 + tonumber(t[2]), true
end
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
-- On Redis TIME an end beyond now + a Lease is a clock that went back (see
-- acquire.lua): the renewal sets it to now + a Lease. (Only the limiter
-- that took a lease renews it: ARGV[2] is that lease's own Lease.)
if timed and s and tonumber(s) > now + tonumber(ARGV[2]) then s = now + tonumber(ARGV[2]) end
if not s or tonumber(s) <= now then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
redis.call('ZADD', KEYS[1], math.max(tonumber(s), now + tonumber(ARGV[2])), ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], math.floor((tonumber(last[2]) - now) / 1000) + 1)
return 1
