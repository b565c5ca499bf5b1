-- sync.lua: one node's push of window counters, the read-back of the
-- merged counts and the node's claim on what remains, in one call.
--
-- KEYS[i] is a window's counter: a hash of the merged total (field t), of
-- each node registered in the window (field n:<node id>, holding its own
-- part) and of each node's claim (field c:<node id>, "units:ms"). One
-- HGETALL reads it all and one HSET writes what changed: two commands per
-- counter, and a PEXPIRE when the write creates the counter. Every key of one call
-- shares a hash tag on a Cluster (on a single Redis, one call may carry
-- every tag).
--
-- ARGV[1] is the node's id, ARGV[2] its clock in ms, ARGV[3] how long a
-- claim lives in ms. Per counter, ARGV[4i .. 4i+3] are: what the node adds
-- (0 to only read; negative after refunds); the counter's TTL in ms (its
-- window's end plus a slack, from the node's clock), set when it is
-- created; the room (the limit less what the previous
-- window still weighs), or -1 for a counter claimed nothing on; the
-- node's guess of how many nodes share the key.
--
-- The node registers in the window, then claims its share of the room:
-- what neither the total nor the other nodes' live claims hold, divided
-- by the nodes registered (at least the guess) that hold no live claim,
-- itself included. The claims thus never add up beyond the room.
--
-- Returns, per counter: the total after the call (never below 0), the
-- nodes registered, the other nodes' live claims, and the divisor used.
local id, now, life = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local nf, cf = 'n:' .. id, 'c:' .. id
local out = {}
for i = 1, #KEYS do
  local k = KEYS[i]
  local a = 4 * i
  local d, ttl, room, guess = tonumber(ARGV[a]), ARGV[a + 1], tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  local h = redis.call('HGETALL', k)
  local t, nodes, others, holders, mine = 0, 0, 0, 0, nil
  for j = 1, #h, 2 do
    local f, v = h[j], h[j + 1]
    local p = string.sub(f, 1, 2)
    if f == 't' then
      t = math.max(tonumber(v) or 0, 0)
    elseif p == 'n:' then
      nodes = nodes + 1
      if f == nf then
        mine = tonumber(v) or 0
      end
    elseif p == 'c:' and f ~= cf then
      local units, at = string.match(v, '^(%d+):(%d+)$')
      if units and now - tonumber(at) < life then
        others = others + tonumber(units)
        holders = holders + 1
      end
    end
  end
  local set = {}
  if d ~= 0 then
    t = math.max(t + d, 0)
    set[#set + 1] = 't'
    set[#set + 1] = string.format('%d', t)
    set[#set + 1] = nf
    set[#set + 1] = string.format('%d', (mine or 0) + d)
    if mine == nil then
      nodes = nodes + 1
    end
  elseif room >= 0 and mine == nil then
    set[#set + 1] = nf
    set[#set + 1] = '0'
    nodes = nodes + 1
  end
  local div = 1
  if room >= 0 then
    div = math.max(1, math.max(guess, nodes) - holders)
    local claim = math.max(0, math.floor((room - t - others) / div))
    set[#set + 1] = cf
    set[#set + 1] = string.format('%d:%d', claim, now)
  end
  if #set > 0 then
    redis.call('HSET', k, unpack(set))
    if #h == 0 then
      -- A new counter: its expiry is the window's end plus the slack, the
      -- same instant whichever write sets it, so the write that creates
      -- it sets it, in the same script: the key never lives without it.
      redis.call('PEXPIRE', k, ttl)
    end
  end
  out[4 * i - 3] = t
  out[4 * i - 2] = nodes
  out[4 * i - 1] = others
  out[4 * i] = div
end
return out
