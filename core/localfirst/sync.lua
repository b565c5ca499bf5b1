-- sync.lua: one node's push of window counters, the read-back of the
-- merged counts and the node's claim on what remains, in one call.
--
-- KEYS[2i-1] is a window's counter: a hash of the total (field t) and of
-- each node registered in the window (a field per node id, holding its own
-- part); KEYS[2i] the window's claims: a hash of "units:ms" per node id.
-- Every key of one call shares a hash tag (Cluster-safe).
--
-- ARGV[1] is the node's id, ARGV[2] its clock in ms, ARGV[3] how long a
-- claim lives in ms. Per counter, ARGV[4i .. 4i+3] are: what the node adds
-- (0 to only read; negative after refunds); the TTL in ms of both keys,
-- set whenever they are written; the room (the limit less what the
-- previous window still weighs), or -1 for a counter claimed nothing on;
-- the node's guess of how many nodes share the key.
--
-- The node registers in the window, then claims its share of the room:
-- what neither the total nor the other nodes' live claims hold, divided
-- by the nodes registered (at least the guess) that hold no live claim,
-- itself included. The claims thus never add up beyond the room.
--
-- Returns, per counter: the total after the call (never below 0), the
-- nodes registered, the other nodes' live claims, and the divisor used.
local id, now, life = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local out = {}
for i = 1, #KEYS / 2 do
  local k, c = KEYS[2 * i - 1], KEYS[2 * i]
  local a = 4 * i
  local d, ttl, room, guess = tonumber(ARGV[a]), ARGV[a + 1], tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  local t
  if d ~= 0 then
    t = redis.call('HINCRBY', k, 't', d)
    if t < 0 then
      redis.call('HSET', k, 't', 0)
      t = 0
    end
    redis.call('HINCRBY', k, id, d)
    redis.call('PEXPIRE', k, ttl)
  else
    t = math.max(tonumber(redis.call('HGET', k, 't') or '0'), 0)
    if room >= 0 and redis.call('HSETNX', k, id, 0) == 1 then
      redis.call('PEXPIRE', k, ttl)
    end
  end
  local nodes = math.max(redis.call('HLEN', k) - 1, 0)
  local others, div = 0, 1
  if room >= 0 then
    local holders = 0
    local cl = redis.call('HGETALL', c)
    for j = 1, #cl, 2 do
      if cl[j] ~= id then
        local units, at = string.match(cl[j + 1], '^(%d+):(%d+)$')
        if units and now - tonumber(at) < life then
          others = others + tonumber(units)
          holders = holders + 1
        end
      end
    end
    div = math.max(1, math.max(guess, nodes) - holders)
    local claim = math.max(0, math.floor((room - t - others) / div))
    redis.call('HSET', c, id, string.format('%d:%d', claim, now))
    redis.call('PEXPIRE', c, ttl)
  end
  out[4 * i - 3] = t
  out[4 * i - 2] = nodes
  out[4 * i - 1] = others
  out[4 * i] = div
end
return out
