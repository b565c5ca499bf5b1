-- sync.lua: one node's push of window counters and the read-back of the
-- merged counts, in one call. KEYS[i] is a window's counter, a hash of the
-- total (field t) and of each node's own part (a field per node, so that
-- its length tells how many nodes admitted in the window); every key of
-- one call shares a hash tag (Cluster-safe). ARGV[1] is the node's id;
-- ARGV[2i] is what the node adds to KEYS[i] (0 to only read; negative
-- after refunds) and ARGV[2i+1] the counter's TTL in ms, set whenever it
-- is written. Returns, per key, the total after the call (never below 0)
-- and the number of nodes that wrote it.
local node = ARGV[1]
local out = {}
for i = 1, #KEYS do
  local k = KEYS[i]
  local d = tonumber(ARGV[2 * i])
  local v
  if d ~= 0 then
    v = redis.call('HINCRBY', k, 't', d)
    if v < 0 then
      redis.call('HSET', k, 't', 0)
      v = 0
    end
    redis.call('HINCRBY', k, node, d)
    redis.call('PEXPIRE', k, ARGV[2 * i + 1])
  else
    v = math.max(tonumber(redis.call('HGET', k, 't') or '0'), 0)
  end
  out[2 * i - 1] = v
  out[2 * i] = math.max(redis.call('HLEN', k) - 1, 0)
end
return out
