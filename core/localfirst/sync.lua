-- sync.lua: one node's round for a batch of keys, in one call: it pushes
-- what the node admitted, reads the merged state back and claims (windows)
-- or leases (buckets) the node's part of what remains.
--
-- KEYS are hashes; every key of one call shares a hash tag on a Cluster.
-- A window hash holds one window of one limit, a bucket hash one span of
-- one limit; in both, a field per key (a digest), whose value is a
-- MessagePack array. Each hash the call touches costs one HMGET, one HSET
-- and one PEXPIRE (more only beyond 4,000 fields), whatever the number of
-- keys: the work per key is in the script.
--
-- ARGV[1] is the node's id, ARGV[2] its clock in ms, ARGV[3] how long a
-- claim or lease lives in ms, ARGV[4] how long a node that synced a bucket
-- counts as sharing it, in ms. Then 14 values per item:
--   kind ('w' a window, 'g' a GCRA, 't' a token bucket), the item's hash
--   (index in KEYS), the previous span's hash for a bucket (0 for none),
--   the field, the TTL set on the item's hash in ms, what the node pushes,
--   four numbers x1..x4, two parameters q1, q2, and for a bucket its span
--   in ns and the node's clock in ns since the span's start:
--   window: x1 the room (the limit less what the previous window still
--     weighs; −1 claims nothing), x2 the node's guess of the nodes sharing
--     the key.
--   bucket: x1 units of former leases to give back, x2 the hold's end of
--     the latest (ns since the span's start), x3 the units the node would
--     lease (0: none), x4 its guess of the sharers; GCRA: q1 the emission
--     interval and q2 the tolerance, in ns; token bucket: q1 the burst, q2
--     the tokens per ns.
--
-- Window value: {total, id, part, claim, claimed at (ms), id, ...}: each
-- node registered in the window, its own part of the total, its claim (−1:
-- none). Returns, per window item: the total after the call (never below
-- 0), the nodes registered, the other nodes' live claims, the divisor of
-- this node's claim and the claim (−1: none).
--
-- Bucket value: {state, at, id, synced (ms), lease, lease end (ms), ...}:
-- GCRA's TAT (ns since the span's start, of the hash it is in), or a token
-- bucket's tokens and the instant they were counted at; each node that
-- synced it within ARGV[6] or holds a live lease. Returns, per bucket
-- item: the state before the lease ("%.17g"), its instant, the units
-- leased, the sharers (this node included), the lease's hold end (ns since
-- the span's start).
local id = ARGV[1]
local nowms, life, horizon = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local H, S, CHUNK = 4, 14, 4000
local n = (#ARGV - H) / S
local floor, max, min, fmt = math.floor, math.max, math.min, string.format
local pack, decode = cmsgpack.pack, cmsgpack.unpack

-- The fields of each hash, and where each item's value is.
local fields, pos = {}, {}
local function need(h, f)
  local w = fields[h]
  if not w then
    w = {}
    fields[h] = w
  end
  w[#w + 1] = f
  return #w
end
for i = 1, n do
  local b = H + (i - 1) * S
  local h1, h2, f = tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3]), ARGV[b + 4]
  pos[2 * i - 1] = need(h1, f)
  pos[2 * i] = h2 > 0 and need(h2, f) or 0
end
local got = {}
for h, fs in pairs(fields) do
  local vals = {}
  for c = 1, #fs, CHUNK do
    local r = redis.call('HMGET', KEYS[h], unpack(fs, c, min(c + CHUNK - 1, #fs)))
    for j = 1, #r do
      vals[c + j - 1] = r[j]
    end
  end
  got[h] = vals
end

local writes, ttls, out = {}, {}, {}
local function put(h, f, v, ttl)
  local w = writes[h]
  if not w then
    w = {}
    writes[h] = w
  end
  w[#w + 1] = f
  w[#w + 1] = v
  ttls[h] = max(ttls[h] or 0, ttl)
end

-- A window: push, register, claim.
local function window(v, push, room, guess)
  local a = v and decode(v) or { 0 }
  local t = max(a[1] or 0, 0)
  local nodes, others, holders, mine = 0, 0, 0, nil
  for j = 2, #a, 4 do
    nodes = nodes + 1
    if a[j] == id then
      mine = j
    elseif a[j + 2] >= 0 and nowms - a[j + 3] < life then
      others = others + a[j + 2]
      holders = holders + 1
    end
  end
  local changed = false
  if push ~= 0 or room >= 0 then
    if not mine then
      mine = #a + 1
      a[mine], a[mine + 1], a[mine + 2], a[mine + 3] = id, 0, -1, 0
      nodes = nodes + 1
    end
    changed = true
  end
  if push ~= 0 then
    t = max(t + push, 0)
    a[mine + 1] = a[mine + 1] + push
  end
  a[1] = t
  local div, claim = 1, -1
  if room >= 0 then
    div = max(1, max(guess, nodes) - holders)
    claim = max(0, floor((room - t - others) / div))
    a[mine + 2] = claim
    a[mine + 3] = nowms
  end
  return changed and pack(a) or nil, t, nodes, others, div, claim
end

-- A bucket: give back, push, register, lease.
local function bucket(gcra, v, now, shift, push, ret, untl, want, guess, q1, q2)
  local a = v and decode(v) or nil
  local x, at
  if gcra then
    x, at = a and a[1] - shift or 0, now
  elseif a then
    x = min(q1, a[1] + max(0, now - (a[2] - shift)) * q2)
    at = max(now, a[2] - shift)
  else
    x, at = q1, now
  end
  if ret > 0 then
    if gcra then
      local give = min(ret * q1, untl - now)
      if give > 0 then
        x = max(x - give, min(x, now))
      end
    else
      local give = min(ret, q1, (untl - now) * q2)
      if give > 0 then
        x = min(q1, x + give)
      end
    end
  end
  if push > 0 then
    -- Units admitted without a lease are charged in full, beyond the burst
    -- if other nodes' leases took it meanwhile (the fleet pays them back),
    -- up to one more burst.
    if gcra then
      x = min(max(x, now) + push * q1, now + 2 * q2)
    else
      x = max(x - push, -q1)
    end
  end
  local pre = x
  local keep, sharers, holders = { 0, at }, 1, 0
  if a then
    for j = 3, #a, 4 do
      local node, synced, units, ends = a[j], a[j + 1], a[j + 2], a[j + 3]
      if node ~= id and (nowms - synced < horizon or ends > nowms) then
        local k = #keep
        keep[k + 1], keep[k + 2], keep[k + 3], keep[k + 4] = node, synced, units, ends
        sharers = sharers + 1
        if ends > nowms and units > 0 then
          holders = holders + 1
        end
      end
    end
  end
  local lease, hold = 0, 0
  if want > 0 then
    local avail
    if gcra then
      avail = floor((q2 - max(x - now, 0)) / q1)
    else
      avail = floor(x)
    end
    if avail > 0 then
      lease = min(want, max(floor(avail / max(1, max(guess, sharers) - holders)), 1))
      if gcra then
        x = max(x, now) + lease * q1
        hold = x
      else
        x = x - lease
        hold = at + (q1 - x) / q2
      end
    end
  end
  keep[1] = x
  local k = #keep
  keep[k + 1], keep[k + 2], keep[k + 3], keep[k + 4] = id, nowms, lease, lease > 0 and nowms + life or 0
  return pack(keep), pre, at, lease, sharers, hold
end

for i = 1, n do
  local b = H + (i - 1) * S
  local kind, h1, h2, f = ARGV[b + 1], tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3]), ARGV[b + 4]
  local ttl, push = tonumber(ARGV[b + 5]), tonumber(ARGV[b + 6])
  local x1, x2, x3, x4 = tonumber(ARGV[b + 7]), tonumber(ARGV[b + 8]), tonumber(ARGV[b + 9]), tonumber(ARGV[b + 10])
  local v = got[h1][pos[2 * i - 1]]
  local o = 5 * (i - 1)
  if kind == 'w' then
    local w, t, nodes, others, div, claim = window(v, push, x1, x2)
    if w then
      put(h1, f, w, ttl)
    end
    out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5] = t, nodes, others, div, claim
  else
    local shift = 0
    if not v and h2 > 0 then
      v = got[h2][pos[2 * i]]
      shift = tonumber(ARGV[b + 13])
    end
    local w, pre, at, lease, sharers, hold = bucket(kind == 'g', v, tonumber(ARGV[b + 14]), shift, push, x1, x2, x3, x4, tonumber(ARGV[b + 11]), tonumber(ARGV[b + 12]))
    put(h1, f, w, ttl)
    out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5] = fmt('%.17g', pre), floor(at), lease, sharers, floor(hold)
  end
end

for h, w in pairs(writes) do
  for c = 1, #w, 2 * CHUNK do
    redis.call('HSET', KEYS[h], unpack(w, c, min(c + 2 * CHUNK - 1, #w)))
  end
  redis.call('PEXPIRE', KEYS[h], ttls[h])
end
return out
