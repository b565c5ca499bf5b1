-- sync.lua: one node's push of window counters and the read-back of the
-- merged counts, in one call. KEYS[i] is a window's counter (every key of
-- one call shares a hash tag: Cluster-safe); ARGV[2i-1] is what the node
-- adds to it (0 to only read; negative after refunds) and ARGV[2i] the
-- counter's TTL in ms, set whenever it is written. Returns each counter's
-- value after the call, never below 0.
local out = {}
for i = 1, #KEYS do
  local d = tonumber(ARGV[2 * i - 1])
  local v
  if d ~= 0 then
    v = redis.call('INCRBY', KEYS[i], d)
    if v < 0 then
      redis.call('SET', KEYS[i], 0)
      v = 0
    end
    redis.call('PEXPIRE', KEYS[i], ARGV[2 * i])
  else
    v = tonumber(redis.call('GET', KEYS[i]) or '0')
  end
  out[i] = v
end
return out
